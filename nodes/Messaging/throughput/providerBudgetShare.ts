import type { ProviderBudget } from './providerBudget';

// Below this share of the account's rate a sender would wait too long between answers to notice the budget refill.
const MIN_SHARE = 0.1;
// A sender alone keeps the full rate while half the budget is left: the count is whole requests, and a budget read
// as one short of full must not cost a lone sender a tenth of its rate on a small bucket.
const SLOW_DOWN_BELOW = 0.5;
// An answer older than this says little about the budget now: another sender may have started or stopped.
const FRESH_FOR_MS = 1000;

/**
 * Several runs can share one API key's rate: executions of one campaign on different n8n workers, other
 * workflows, other apps. Only the provider sees them all, and it tells each answer what is left. Sending at
 * (remaining + 1) / window makes every sender slow down as the budget drains: N senders settle at about 1/N of the
 * rate each, the budget neither empty (429s) nor full (idle capacity), and a sender alone gets all of it.
 */
export class ProviderBudgetShare {
	private latest: { rate: number; at: number } | undefined;

	record(budget: ProviderBudget, now: number): void {
		const fullRate = budget.quota / budget.windowSeconds;
		const rate = Math.min(
			fullRate,
			(budget.remaining + 1) / (budget.windowSeconds * SLOW_DOWN_BELOW),
		);
		this.latest = { rate: Math.max(fullRate * MIN_SHARE, rate), at: now };
	}

	/** Messages per second this sender's share allows; Infinity when no fresh answer told the budget. */
	rateAt(now: number): number {
		if (!this.latest || now - this.latest.at > FRESH_FOR_MS) return Number.POSITIVE_INFINITY;
		return this.latest.rate;
	}
}
