import type { ProviderBudget } from '../../../../nodes/Messaging/vocabulary/providerBudget';
import { RateLimitedByProvider, seededRandom } from './simulatedProvider';
import type { VirtualClock } from './virtualClock';

export interface FixedWindowSettings {
	/** Requests accepted per window. */
	quota: number;
	windowSeconds: number;
	/** A second, longer budget (a daily cap) over the whole run, whole again only after `capResetSeconds`. */
	cap?: { quota: number; resetSeconds: number };
	latencyMs: number;
	jitterMs: number;
	/** How far into its first window the campaign starts: the provider's windows follow its own clock. */
	startsIntoWindowMs?: number;
}

/**
 * A provider counting requests in fixed windows (0–W, W–2W, … from the clock's zero), as many real ones do, and
 * telling every answer its budget: the tighter of the window and the cap, with the seconds until it resets; a 429
 * asks to wait exactly until then (whole seconds, at least 1).
 */
export class FixedWindowProvider {
	readonly accepted: Array<{ item: number; at: number }> = [];

	/** Every request as the provider saw it: the item and whether it was accepted. */
	readonly requests: Array<{ item: number; at: number; accepted: boolean }> = [];

	private readonly usedByWindow = new Map<number, number>();

	private usedOfCap = 0;

	private readonly random = seededRandom(7);

	constructor(
		private readonly settings: FixedWindowSettings,
		private readonly clock: VirtualClock,
	) {}

	get throttled(): number {
		return this.requests.filter((request) => !request.accepted).length;
	}

	async send(item: number): Promise<ProviderBudget> {
		const latency = this.settings.latencyMs + this.random() * this.settings.jitterMs;
		await this.clock.sleep(latency / 2);
		const now = this.clock.now() + (this.settings.startsIntoWindowMs ?? 0);
		const windowMs = this.settings.windowSeconds * 1000;
		const window = Math.floor(now / windowMs);
		const used = this.usedByWindow.get(window) ?? 0;
		const { cap } = this.settings;
		const admitted = used < this.settings.quota && (!cap || this.usedOfCap < cap.quota);
		if (admitted) {
			this.usedByWindow.set(window, used + 1);
			this.usedOfCap++;
		}
		this.requests.push({ item, at: now, accepted: admitted });
		const windowBudget = {
			remaining: this.settings.quota - (this.usedByWindow.get(window) ?? 0),
			quota: this.settings.quota,
			windowSeconds: this.settings.windowSeconds,
			resetSeconds: Math.ceil(((window + 1) * windowMs - now) / 1000),
		};
		const budget =
			cap && cap.quota - this.usedOfCap < windowBudget.remaining
				? {
						remaining: cap.quota - this.usedOfCap,
						quota: cap.quota,
						windowSeconds: cap.resetSeconds,
						resetSeconds: Math.ceil(cap.resetSeconds - now / 1000),
					}
				: windowBudget;
		await this.clock.sleep(latency / 2);
		if (admitted) {
			this.accepted.push({ item, at: now });
			return budget;
		}
		throw new RateLimitedByProvider(String(Math.max(1, budget.resetSeconds)), budget);
	}

	/** The most requests accepted in one of the provider's windows. */
	maxAcceptedInOneWindow(): number {
		return Math.max(0, ...this.usedByWindow.values());
	}

	/** The most requests accepted in any span of one window's length: what a sliding-window provider would count. */
	maxAcceptedInAnySpan(): number {
		const times = this.accepted.map((entry) => entry.at).sort((a, b) => a - b);
		const spanMs = this.settings.windowSeconds * 1000;
		let most = 0;
		let first = 0;
		times.forEach((at, last) => {
			while (times[first] <= at - spanMs) first++;
			most = Math.max(most, last - first + 1);
		});
		return most;
	}
}
