import { performance } from 'node:perf_hooks';
import { ApiError } from '../http/api-error';
import type { RateLimitConfig } from '../types';
import { TokenBucket, type BucketLevel } from './token-bucket';

/**
 * One token bucket per API key. It runs on real monotonic time, not the sandbox clock: clients
 * really wait out the Retry-After, and advancing the clock must not hand out tokens.
 */
export class RateLimiter {
	private buckets = new Map<string, TokenBucket>();
	private config: RateLimitConfig | null = null;

	constructor(
		config: RateLimitConfig | null,
		private readonly nowMs: () => number = () => performance.now(),
	) {
		this.configure(config);
	}

	configure(config: RateLimitConfig | null): void {
		this.config = checkedRateLimit(config);
		this.buckets = new Map();
	}

	/**
	 * Throws the 429 answer when the key is over its rate. Either way the answer carries the key's budget in the
	 * IETF RateLimit-* headers, so clients that share one key (several n8n workers) can each see what the others use.
	 */
	admit(apiKey: string): Record<string, string> {
		if (this.config === null) return {};
		let bucket = this.buckets.get(apiKey);
		if (!bucket) {
			const capacity = this.config.burst ?? Math.max(1, this.config.perSecond);
			bucket = new TokenBucket(this.config.perSecond, capacity, this.nowMs);
			this.buckets.set(apiKey, bucket);
		}
		const result = bucket.take();
		const budget =
			this.config.budgetHeaders === false
				? {}
				: budgetHeaders(this.config.perSecond, bucket.level());
		if (result.allowed) return budget;
		const retryAfterSeconds = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
		throw new ApiError(
			429,
			'rate_limited',
			`Too many requests: this API key may send ${this.config.perSecond} per second. Retry after ${retryAfterSeconds} s.`,
			undefined,
			{ ...budget, 'Retry-After': String(retryAfterSeconds) },
		);
	}
}

function budgetHeaders(perSecond: number, level: BucketLevel): Record<string, string> {
	return {
		'RateLimit-Limit': String(perSecond),
		'RateLimit-Remaining': String(level.remaining),
		'RateLimit-Reset': String(level.fullInSeconds),
		'RateLimit-Policy': `${level.capacity};w=${level.capacity / perSecond}`,
	};
}

export function checkedRateLimit(config: RateLimitConfig | null): RateLimitConfig | null {
	if (config === null) return null;
	if (typeof config !== 'object' || !(config.perSecond > 0))
		throw new Error('rateLimit.perSecond must be a positive number');
	if (config.burst !== undefined && !(config.burst >= 1))
		throw new Error('rateLimit.burst must be at least 1');
	return config;
}
