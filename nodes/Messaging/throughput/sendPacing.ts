import type { FailureKind } from '../vocabulary/failureKind';
import type { ProviderBudget } from '../vocabulary/providerBudget';
import { AdaptiveConcurrencyLimit } from './adaptiveConcurrency';
import type { Clock } from './clock';
import type { AdaptiveSendRateLimiter, SendTurn } from './rateLimiter';

export type { SendTurn };

/**
 * The one thing a send loop asks of throughput: how many sends may be on the wire, when the next may start, and
 * what each answer teaches. The rate limiter spaces starts (retries before first tries); the concurrency limit
 * caps what is on the wire; both learn from the same answers and the provider's budget.
 */
export class SendPacing {
	private readonly concurrency: AdaptiveConcurrencyLimit;

	/** `maxConcurrency`: Max Concurrent Requests, 0 for automatic. */
	constructor(
		private readonly limiter: AdaptiveSendRateLimiter,
		maxConcurrency: number,
		readonly clock: Clock,
	) {
		this.concurrency = new AdaptiveConcurrencyLimit(
			{ upperBound: maxConcurrency || undefined },
			clock,
		);
	}

	/** How many sends may be in flight now. */
	get inFlightLimit(): number {
		return this.concurrency.current;
	}

	/**
	 * Starts `request` when its turn comes and learns from its answer (`failureKindOf`: undefined for a success).
	 * `request` tells the provider's budget as soon as the answer arrives, while it still counts as in flight.
	 * Rejects without sending when the provider's budget is spent until a reset too far away to wait for.
	 */
	async send<T>(
		turn: SendTurn,
		request: (tellBudget: (budget: ProviderBudget) => void) => Promise<T>,
		failureKindOf: (answer: T) => FailureKind | undefined,
	): Promise<T> {
		const isThrottled = (answer: T) => failureKindOf(answer) === 'rate_limited';
		// Timed inside the rate limiter: a wait for a slot is our pacing, not the provider's latency.
		const sendTimed = async () =>
			await this.concurrency.track(async () => await request(this.tellBudget), failureKindOf);
		return await this.limiter.send(turn, sendTimed, isThrottled);
	}

	private readonly tellBudget = (budget: ProviderBudget): void => {
		this.limiter.recordProviderBudget(budget);
		this.concurrency.recordProviderBudget(budget);
	};
}
