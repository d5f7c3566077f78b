/** Every timer the sandbox starts, so that close() leaves no open handle behind. */
export class TimerRegistry {
	private readonly pending = new Set<NodeJS.Timeout>();
	private closed = false;

	schedule(delayMs: number, run: () => void): void {
		if (this.closed) return;
		const timer = setTimeout(
			() => {
				this.pending.delete(timer);
				if (!this.closed) run();
			},
			Math.max(0, delayMs),
		);
		this.pending.add(timer);
	}

	/** Resolves after delayMs; never resolves once the registry is closed. */
	wait(delayMs: number): Promise<void> {
		return new Promise((resolve) => this.schedule(delayMs, resolve));
	}

	get isClosed(): boolean {
		return this.closed;
	}

	close(): void {
		this.closed = true;
		for (const timer of this.pending) clearTimeout(timer);
		this.pending.clear();
	}
}
