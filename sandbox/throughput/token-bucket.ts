// Float error must not turn a request sent exactly on time into a 429.
const TOLERANCE = 1e-9;

export type TakeResult = { allowed: true } | { allowed: false; retryAfterMs: number };

/** Continuous refill, so a client sending at exactly the rate never finds the bucket empty. */
export class TokenBucket {
	private tokens: number;
	private refilledAt: number;

	constructor(
		private readonly perSecond: number,
		private readonly capacity: number,
		private readonly nowMs: () => number,
	) {
		this.tokens = capacity;
		this.refilledAt = nowMs();
	}

	take(): TakeResult {
		const now = this.nowMs();
		this.tokens = Math.min(this.capacity, this.tokens + ((now - this.refilledAt) * this.perSecond) / 1000);
		this.refilledAt = now;
		if (this.tokens >= 1 - TOLERANCE) {
			this.tokens = Math.max(0, this.tokens - 1);
			return { allowed: true };
		}
		return { allowed: false, retryAfterMs: ((1 - this.tokens) * 1000) / this.perSecond };
	}
}
