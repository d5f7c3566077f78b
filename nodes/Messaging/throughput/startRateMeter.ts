const MEASURE_WINDOW_MS = 1000;
// A run's first few starts happen all at once; dividing them by a few milliseconds would read as thousands per second.
const MIN_MEASURE_SPAN_MS = 100;

/** The rate a sender achieved over the last second, counted from the starts it made. */
export class StartRateMeter {
	private readonly recentStarts: number[] = [];

	private firstStartAt: number | undefined;

	recordStart(now: number): void {
		this.firstStartAt ??= now;
		this.recentStarts.push(now);
		this.forgetStartsBefore(now - MEASURE_WINDOW_MS);
	}

	ratePerSecond(now: number): number {
		this.forgetStartsBefore(now - MEASURE_WINDOW_MS);
		const span = Math.min(
			MEASURE_WINDOW_MS,
			Math.max(MIN_MEASURE_SPAN_MS, now - (this.firstStartAt ?? now)),
		);
		return (this.recentStarts.length * 1000) / span;
	}

	private forgetStartsBefore(cutoff: number): void {
		while (this.recentStarts.length > 0 && this.recentStarts[0] <= cutoff)
			this.recentStarts.shift();
	}
}
