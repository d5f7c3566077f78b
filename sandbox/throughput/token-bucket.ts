// Float error must not turn a request sent exactly on time into a 429.
const TOLERANCE = 1e-9;

export type TakeResult = { allowed: true } | { allowed: false; retryAfterMs: number };

/** What the bucket holds after a take, as the RateLimit-* answer headers tell it. */
export interface BucketLevel {
	capacity: number;
	/** Whole requests that may be sent right now. */
	remaining: number;
	/** Seconds until the bucket is full again. */
	fullInSeconds: number;
}

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
		this.tokens = Math.min(
			this.capacity,
			this.tokens + ((now - this.refilledAt) * this.perSecond) / 1000,
		);
		this.refilledAt = now;
		if (this.tokens >= 1 - TOLERANCE) {
			this.tokens = Math.max(0, this.tokens - 1);
			return { allowed: true };
		}
		return { allowed: false, retryAfterMs: ((1 - this.tokens) * 1000) / this.perSecond };
	}

	level(): BucketLevel {
		return {
			capacity: this.capacity,
			remaining: Math.floor(this.tokens + TOLERANCE),
			fullInSeconds: Math.ceil((this.capacity - this.tokens) / this.perSecond - TOLERANCE),
		};
	}
}
