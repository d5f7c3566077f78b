import type { Clock } from './clock';

/**
 * Spaces request starts evenly at `perSecond` (one slot every 1000 / perSecond ms) instead of letting a
 * burst through and then sleeping: a provider's token bucket sees a steady stream it never has to refuse.
 * Slots are reserved synchronously, so concurrent callers queue up in call order.
 */
export class SendRateLimiter {
	private readonly intervalMs: number;

	private nextSlotAt = 0;

	constructor(
		perSecond: number,
		private readonly clock: Clock,
	) {
		this.intervalMs = perSecond > 0 ? 1000 / perSecond : 0;
	}

	async acquire(): Promise<void> {
		if (this.intervalMs === 0) return;
		const now = this.clock.now();
		const slot = Math.max(now, this.nextSlotAt);
		this.nextSlotAt = slot + this.intervalMs;
		await this.clock.sleep(slot - now);
	}
}
