import { performance } from 'node:perf_hooks';
import { ApiError } from '../http/api-error';
import type { RateLimitConfig } from '../types';
import { TokenBucket } from './token-bucket';

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

	/** Throws the 429 answer when the key is over its rate. */
	admit(apiKey: string): void {
		if (this.config === null) return;
		let bucket = this.buckets.get(apiKey);
		if (!bucket) {
			const capacity = this.config.burst ?? Math.max(1, this.config.perSecond);
			bucket = new TokenBucket(this.config.perSecond, capacity, this.nowMs);
			this.buckets.set(apiKey, bucket);
		}
		const result = bucket.take();
		if (result.allowed) return;
		const retryAfterSeconds = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
		throw new ApiError(
			429,
			'rate_limited',
			`Too many requests: this API key may send ${this.config.perSecond} per second. Retry after ${retryAfterSeconds} s.`,
			undefined,
			{ 'Retry-After': String(retryAfterSeconds) },
		);
	}
}

export function checkedRateLimit(config: RateLimitConfig | null): RateLimitConfig | null {
	if (config === null) return null;
	if (typeof config !== 'object' || !(config.perSecond > 0)) throw new Error('rateLimit.perSecond must be a positive number');
	if (config.burst !== undefined && !(config.burst >= 1)) throw new Error('rateLimit.burst must be at least 1');
	return config;
}
