/**
 * A bound on outgoing webhook requests in flight, as a provider's sender pool has: past it, a request waits for
 * a free slot, first come first served. Counts the most ever in flight, so a run can show the bound held.
 */
export class ConnectionPool {
	private inFlightNow = 0;
	private maxInFlightSeen = 0;
	private readonly waiting: Array<() => void> = [];

	constructor(private limit: number) {
		this.resize(limit);
	}

	resize(limit: number): void {
		if (!Number.isInteger(limit) || limit < 1)
			throw new Error('webhooks.maxConcurrent must be a whole number, 1 or more');
		this.limit = limit;
		while (this.inFlightNow < this.limit && this.waiting.length > 0) this.admitNext();
	}

	/** Resolves once a slot is held; call release() when the request is over. */
	acquire(): Promise<void> {
		if (this.inFlightNow < this.limit && this.waiting.length === 0) {
			this.take();
			return Promise.resolve();
		}
		return new Promise((resolve) => this.waiting.push(resolve));
	}

	release(): void {
		this.inFlightNow--;
		if (this.inFlightNow < this.limit && this.waiting.length > 0) this.admitNext();
	}

	get inFlight(): number {
		return this.inFlightNow;
	}

	get maxInFlight(): number {
		return this.maxInFlightSeen;
	}

	private admitNext(): void {
		const next = this.waiting.shift();
		if (!next) return;
		this.take();
		next();
	}

	private take(): void {
		this.inFlightNow++;
		this.maxInFlightSeen = Math.max(this.maxInFlightSeen, this.inFlightNow);
	}
}
