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
