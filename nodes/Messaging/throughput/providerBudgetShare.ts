import type { ProviderBudget } from '../vocabulary/providerBudget';

// Below this share of the account's rate a sender would wait too long between answers to notice the budget refill.
const MIN_SHARE = 0.1;
// A sender keeps its own pace while half the budget is left: the count is whole requests, and a budget read as one
// short of full must not cost a sender a tenth of its rate on a small bucket.
const SLOW_DOWN_BELOW = 0.5;
// Once others are seen on the key, they are assumed there this long: with a refilling budget, answers show the
// others' use only while it outruns the refill, and a sender that forgot them would burst into their share.
const SHARED_FOR_MS = 60_000;

interface LatestAnswer {
	remaining: number;
	quota: number;
	windowSeconds: number;
	/** When the provider said the budget is whole again. */
	resetAt: number;
	/** This sender's other requests on the wire when the answer came: the provider may not have counted them yet. */
	othersInFlight: number;
}

function inWords(ms: number): string {
	const minutes = Math.ceil(ms / 60_000);
	if (minutes < 60) return `${minutes} min`;
	return `${Number((minutes / 60).toFixed(1))} h`;
}

/** The provider's budget is spent until a reset too far away to wait for: the message was not sent. */
export class ProviderBudgetSpent extends Error {
	constructor(
		readonly resetAt: number,
		now: number,
	) {
		super(
			`The provider's budget for this API key is used up until ${new Date(resetAt).toISOString()} (resets in ${inWords(resetAt - now)}), so this message was not sent. Send it again after the reset, or ask the provider for a larger budget.`,
		);
		this.name = 'ProviderBudgetSpent';
	}
}

/**
 * What the provider's answers say is left of an API key's budget, for windows of any length (a second, a minute,
 * a day). A sender alone spends the budget at its own pace and waits for the reset the provider named once it is
 * spent; the provider then opens a whole new window, so nothing is lost by waiting. When the budget drops by
 * more than this sender's own requests, others share the key (n8n workers, other workflows, other apps): it then
 * sends at (remaining + 1) / (window / 2), so N senders settle at about 1/N of the rate each, the budget neither
 * empty (429s) nor full (idle capacity).
 */
export class ProviderBudgetShare {
	private latest: LatestAnswer | undefined;

	private startsSinceAnswer = 0;

	private sharedUntil = Number.NEGATIVE_INFINITY;

	/** `inFlight`: this sender's requests on the wire, the answering one included. */
	record(budget: ProviderBudget, now: number, inFlight = 1): void {
		const resetSeconds = budget.resetSeconds ?? budget.windowSeconds;
		let resetAt = now + resetSeconds * 1000;
		const previous = this.valid(now);
		if (previous && this.isLateAnswer(budget, previous)) {
			previous.othersInFlight = Math.max(0, previous.othersInFlight - 1);
			return;
		}
		if (previous) {
			const ownUse = previous.othersInFlight + this.startsSinceAnswer;
			if (budget.remaining < previous.remaining - ownUse)
				this.sharedUntil = now + Math.max(budget.windowSeconds * 1000, SHARED_FOR_MS);
			// Resets come in whole seconds, rounded up: the earliest told in one window is the closest to the truth.
			if (budget.remaining <= previous.remaining) resetAt = Math.min(resetAt, previous.resetAt);
		}
		this.latest = {
			remaining: budget.remaining,
			quota: budget.quota,
			windowSeconds: budget.windowSeconds,
			resetAt,
			othersInFlight: Math.max(0, inFlight - 1),
		};
		this.startsSinceAnswer = 0;
	}

	recordStart(): void {
		this.startsSinceAnswer++;
	}

	/** Messages per second this sender's share allows; Infinity when it is alone or the budget is unknown. */
	rateAt(now: number): number {
		const { latest } = this;
		if (!latest || now >= this.sharedUntil) return Number.POSITIVE_INFINITY;
		// Past the reset the budget is whole, but the others are still there: no sender may take it all at once.
		const remaining = now < latest.resetAt ? latest.remaining : latest.quota;
		const fullRate = latest.quota / latest.windowSeconds;
		const rate = Math.min(fullRate, (remaining + 1) / (latest.windowSeconds * SLOW_DOWN_BELOW));
		return Math.max(fullRate * MIN_SHARE, rate);
	}

	/**
	 * When the budget is spent, the time it is whole again; undefined while some is left or nothing is known. Counts
	 * this sender's requests the provider may not have counted yet, so it errs towards waiting.
	 */
	spentUntil(now: number): number | undefined {
		const latest = this.valid(now);
		if (!latest) return undefined;
		const left = latest.remaining - latest.othersInFlight - this.startsSinceAnswer;
		return left > 0 ? undefined : latest.resetAt;
	}

	/**
	 * An answer to a request the provider counted before the latest one, overtaken on the way back: it shows more left
	 * than the latest, but no more than the requests that were then still on the wire could explain.
	 */
	private isLateAnswer(budget: ProviderBudget, previous: LatestAnswer): boolean {
		return (
			budget.remaining > previous.remaining &&
			budget.remaining <= previous.remaining + previous.othersInFlight
		);
	}

	/** An answer says nothing once the reset it named has passed: the budget is whole again. */
	private valid(now: number): LatestAnswer | undefined {
		return this.latest && now < this.latest.resetAt ? this.latest : undefined;
	}
}
