/**
 * What the provider said is left of the account's rate: `remaining` requests may be sent now, and a full
 * budget of `quota` requests refills over `windowSeconds`. README: API assumptions.
 */
export interface ProviderBudget {
	remaining: number;
	quota: number;
	windowSeconds: number;
	/** Seconds until the budget is whole again (`RateLimit-Reset`): a fixed window's end, or a bucket's refill. */
	resetSeconds?: number;
}

/** How long a run waits for a budget to be whole again; a reset further away fails the items still waiting. */
export const LONGEST_BUDGET_WAIT_MS = 3_600_000;

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
