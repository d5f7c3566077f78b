import { performance } from 'node:perf_hooks';
import { ApiError } from '../http/api-error';
import type { RateLimitConfig } from '../types';
import { FixedWindow } from './fixed-window';
import { TokenBucket } from './token-bucket';

const DAY_SECONDS = 86_400;

/** The limits one API key answers to; any of them may refuse a request. */
interface KeyLimits {
	bucket?: TokenBucket;
	window?: FixedWindow;
	daily?: FixedWindow;
}

/** One budget as the headers tell it; the tightest is the one named in RateLimit-Limit/Remaining/Reset. */
interface BudgetView {
	limit: number;
	remaining: number;
	resetSeconds: number;
	policy: string;
}

/**
 * Per API key: a token bucket (`perSecond`, `burst`), a fixed window of any length (`window`) and a daily cap
 * (`dailyCap`, reset at UTC midnight of the sandbox clock), each optional. The bucket and the window run on real
 * monotonic time, not the sandbox clock: clients really wait out the Retry-After, and advancing the clock must not
 * hand out budget. The daily cap follows the sandbox clock, so a test can move past midnight.
 */
export class RateLimiter {
	private keys = new Map<string, KeyLimits>();
	private config: RateLimitConfig | null = null;

	constructor(
		config: RateLimitConfig | null,
		private readonly nowMs: () => number = () => performance.now(),
		private readonly wallMs: () => number = () => Date.now(),
	) {
		this.configure(config);
	}

	configure(config: RateLimitConfig | null): void {
		this.config = checkedRateLimit(config);
		this.keys = new Map();
	}

	/**
	 * Throws the 429 answer when the key is over a limit. Either way the answer carries the key's tightest budget in
	 * the IETF RateLimit-* headers, so clients that share one key (several n8n workers) can each see what the others
	 * use, and a client can wait for the reset instead of asking again.
	 */
	admit(apiKey: string): Record<string, string> {
		if (this.config === null) return {};
		const limits = this.limitsOf(apiKey, this.config);
		const refusal = this.refusal(limits);
		const budget =
			this.config.budgetHeaders === false ? {} : budgetHeaders(limits, this.config.perSecond);
		if (!refusal) return budget;
		const retryAfterSeconds = Math.max(1, Math.ceil(refusal.retryAfterMs / 1000));
		throw new ApiError(
			429,
			'rate_limited',
			`Too many requests: this API key may send ${refusal.rule}. Retry after ${retryAfterSeconds} s.`,
			undefined,
			{ ...budget, 'Retry-After': String(retryAfterSeconds) },
		);
	}

	/** The windows are asked first: the bucket's take spends a token, so it may only go last. */
	private refusal(limits: KeyLimits): { retryAfterMs: number; rule: string } | undefined {
		const windows = [limits.daily, limits.window].filter((window) => window !== undefined);
		for (const window of windows) {
			const room = window.check();
			if (!room.allowed) return { retryAfterMs: room.retryAfterMs, rule: ruleOf(window) };
		}
		const taken = limits.bucket?.take() ?? { allowed: true };
		if (!taken.allowed)
			return { retryAfterMs: taken.retryAfterMs, rule: `${this.config!.perSecond} per second` };
		for (const window of windows) window.spend();
		return undefined;
	}

	private limitsOf(apiKey: string, config: RateLimitConfig): KeyLimits {
		let limits = this.keys.get(apiKey);
		if (!limits) {
			limits = {};
			if (config.perSecond !== undefined) {
				const capacity = config.burst ?? Math.max(1, config.perSecond);
				limits.bucket = new TokenBucket(config.perSecond, capacity, this.nowMs);
			}
			if (config.window)
				limits.window = new FixedWindow(config.window.limit, config.window.seconds, this.nowMs);
			if (config.dailyCap !== undefined)
				limits.daily = new FixedWindow(config.dailyCap, DAY_SECONDS, this.wallMs, true);
			this.keys.set(apiKey, limits);
		}
		return limits;
	}
}

function ruleOf(window: FixedWindow): string {
	return window.seconds === DAY_SECONDS
		? `${window.limit} per day (UTC)`
		: `${window.limit} per ${window.seconds} s`;
}

function views(limits: KeyLimits, perSecond: number | undefined): BudgetView[] {
	const found: BudgetView[] = [];
	if (limits.bucket && perSecond !== undefined) {
		const level = limits.bucket.level();
		found.push({
			limit: perSecond,
			remaining: level.remaining,
			resetSeconds: level.fullInSeconds,
			policy: `${level.capacity};w=${level.capacity / perSecond}`,
		});
	}
	for (const window of [limits.window, limits.daily]) {
		if (!window) continue;
		const level = window.level();
		found.push({
			limit: level.limit,
			remaining: level.remaining,
			resetSeconds: level.resetSeconds,
			policy: `${level.limit};w=${level.windowSeconds}`,
		});
	}
	return found;
}

/** The tightest budget first: the fewest requests left, then the reset furthest away. */
function budgetHeaders(limits: KeyLimits, perSecond?: number): Record<string, string> {
	const all = views(limits, perSecond).sort(
		(a, b) => a.remaining - b.remaining || b.resetSeconds - a.resetSeconds,
	);
	const [tightest] = all;
	if (!tightest) return {};
	return {
		'RateLimit-Limit': String(tightest.limit),
		'RateLimit-Remaining': String(tightest.remaining),
		'RateLimit-Reset': String(tightest.resetSeconds),
		'RateLimit-Policy': all.map((view) => view.policy).join(', '),
	};
}

function positive(value: unknown): boolean {
	return typeof value === 'number' && value > 0;
}

export function checkedRateLimit(config: RateLimitConfig | null): RateLimitConfig | null {
	if (config === null) return null;
	if (typeof config !== 'object') throw new Error('rateLimit must be an object or null');
	const { perSecond, burst, window, dailyCap } = config;
	if ((perSecond !== undefined || (!window && dailyCap === undefined)) && !positive(perSecond))
		throw new Error('rateLimit.perSecond must be a positive number');
	if (burst !== undefined && !(burst >= 1)) throw new Error('rateLimit.burst must be at least 1');
	if (window !== undefined && !(positive(window?.limit) && positive(window?.seconds)))
		throw new Error('rateLimit.window must be { limit, seconds }, both positive numbers');
	if (dailyCap !== undefined && !(Number.isInteger(dailyCap) && dailyCap > 0))
		throw new Error('rateLimit.dailyCap must be a positive whole number');
	return config;
}
