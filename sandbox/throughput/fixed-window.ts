import type { TakeResult } from './token-bucket';

/** What a fixed window holds now, as the RateLimit-* answer headers tell it. */
export interface WindowLevel {
	limit: number;
	windowSeconds: number;
	remaining: number;
	/** Whole seconds, rounded up, until the window ends and the count starts again. */
	resetSeconds: number;
}

/**
 * Counts requests in fixed windows of any length, as many providers do: `limit` per window, all of it back at
 * once when the window ends. A window opens with the first request after the previous one ended, or, when
 * `aligned`, on the clock's multiples of its length (a daily cap at UTC midnight).
 */
export class FixedWindow {
	private startedAt: number | undefined;
	private used = 0;

	constructor(
		readonly limit: number,
		readonly seconds: number,
		private readonly nowMs: () => number,
		private readonly aligned = false,
	) {}

	/** Whether one more request fits, without counting it. */
	check(): TakeResult {
		const endsAt = this.roll(this.nowMs());
		return this.used < this.limit
			? { allowed: true }
			: { allowed: false, retryAfterMs: endsAt - this.nowMs() };
	}

	spend(): void {
		this.roll(this.nowMs());
		this.used++;
	}

	level(): WindowLevel {
		const now = this.nowMs();
		const endsAt = this.roll(now);
		return {
			limit: this.limit,
			windowSeconds: this.seconds,
			remaining: Math.max(0, this.limit - this.used),
			resetSeconds: Math.ceil((endsAt - now) / 1000),
		};
	}

	/** Starts a new window when the current one has ended; returns when the current one ends. */
	private roll(now: number): number {
		const lengthMs = this.seconds * 1000;
		const start = this.aligned ? Math.floor(now / lengthMs) * lengthMs : this.startedAt;
		if (this.aligned ? start !== this.startedAt : start === undefined || now >= start + lengthMs) {
			this.startedAt = this.aligned ? start : now;
			this.used = 0;
		}
		return this.startedAt! + lengthMs;
	}
}
