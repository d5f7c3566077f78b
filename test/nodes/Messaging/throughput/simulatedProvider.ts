import { forEachWithConcurrency } from '../../../../nodes/Messaging/throughput/pool';
import { AdaptiveSendRateLimiter } from '../../../../nodes/Messaging/throughput/rateLimiter';
import { sendWithRetries } from '../../../../nodes/Messaging/transport/failures/retry';
import type { ClassifiedFailure } from '../../../../nodes/Messaging/vocabulary/failureKind';
import type { ProviderBudget } from '../../../../nodes/Messaging/vocabulary/providerBudget';
import type { VirtualClock } from './virtualClock';

/** Deterministic jitter, so a simulated run is the same on every machine. */
export function seededRandom(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export class RateLimitedByProvider extends Error {
	constructor(
		readonly retryAfter: string,
		readonly budget: ProviderBudget,
	) {
		super('429');
	}
}

export const classifyProviderFailure = (error: unknown): ClassifiedFailure =>
	error instanceof RateLimitedByProvider
		? { kind: 'rate_limited', retryAfter: error.retryAfter }
		: { kind: 'final' };

export interface ProviderSettings {
	perSecond: number;
	burst: number;
	latencyMs: number;
	jitterMs: number;
}

/** The sandbox's token bucket and its Retry-After (whole seconds, at least 1), on virtual time. */
export class SimulatedProvider {
	private tokens: number;

	private refilledAt = 0;

	readonly accepted: number[] = [];

	throttled = 0;

	private readonly random = seededRandom(42);

	constructor(
		private readonly settings: ProviderSettings,
		private readonly clock: VirtualClock,
	) {
		this.tokens = settings.burst;
	}

	/** Answers with what is left of the budget, as the sandbox's RateLimit-* headers tell it. */
	async send(item: number): Promise<ProviderBudget> {
		const latency = this.settings.latencyMs + this.random() * this.settings.jitterMs;
		await this.clock.sleep(latency / 2);
		const now = this.clock.now();
		this.tokens = Math.min(
			this.settings.burst,
			this.tokens + ((now - this.refilledAt) * this.settings.perSecond) / 1000,
		);
		this.refilledAt = now;
		const admitted = this.tokens >= 1 - 1e-9;
		if (admitted) this.tokens = Math.max(0, this.tokens - 1);
		const retryAfterMs = ((1 - this.tokens) * 1000) / this.settings.perSecond;
		const budget = {
			remaining: Math.floor(this.tokens + 1e-9),
			quota: this.settings.burst,
			windowSeconds: this.settings.burst / this.settings.perSecond,
		};
		await this.clock.sleep(latency / 2);
		if (admitted) {
			this.accepted.push(item);
			return budget;
		}
		this.throttled++;
		throw new RateLimitedByProvider(String(Math.max(1, Math.ceil(retryAfterMs / 1000))), budget);
	}
}

export interface CampaignSettings {
	items: number;
	concurrency: number;
	maxTries: number;
	maxPerSecond: number;
	/** Pace by the budget the provider tells, as the node does when the RateLimit-* headers come back. */
	readsBudget?: boolean;
	/** Added to the item numbers, so several campaigns against one provider send distinct messages. */
	firstItem?: number;
}

export interface CampaignOutcome {
	failedItems: number[];
	/** Each failed item's error (the 429 it ran out of tries on, or the pacing's refusal), as the retry policy gave it up. */
	failures: Array<{ item: number; error: unknown; triesMade: number; at: number }>;
	durationMs: number;
}

/** What a campaign sends to: an answer with the budget left, or a RateLimitedByProvider. */
export interface BudgetTellingProvider {
	send(item: number): Promise<ProviderBudget>;
}

/** The router's send loop in miniature: lanes, the adaptive limiter, per-item retries. */
export async function sendCampaign(
	campaign: CampaignSettings,
	provider: BudgetTellingProvider,
	clock: VirtualClock,
): Promise<CampaignOutcome> {
	const limiter = new AdaptiveSendRateLimiter({ maxPerSecond: campaign.maxPerSecond }, clock);
	const failures: CampaignOutcome['failures'] = [];
	const tellBudget = (budget: ProviderBudget) => {
		if (campaign.readsBudget) limiter.recordProviderBudget(budget);
	};
	// The transport's way: a 429 is an answer, not a rejection.
	const sendTelling = async (item: number): Promise<{ throttled?: RateLimitedByProvider }> => {
		try {
			tellBudget(await provider.send(item));
			return {};
		} catch (error) {
			if (!(error instanceof RateLimitedByProvider)) throw error;
			tellBudget(error.budget);
			return { throttled: error };
		}
	};
	const failureOf = (answer: { throttled?: RateLimitedByProvider }) =>
		answer.throttled && classifyProviderFailure(answer.throttled);
	await forEachWithConcurrency(campaign.items, campaign.concurrency, async (position) => {
		const item = (campaign.firstItem ?? 0) + position;
		const outcome = await sendWithRetries(
			async (tryNumber) =>
				await limiter.send(
					tryNumber > 1 ? 'retry' : 'first',
					async () => await sendTelling(item),
					(answer) => answer.throttled !== undefined,
				),
			failureOf,
			{ maxTries: campaign.maxTries, idempotent: false },
			clock,
		);
		const error = 'error' in outcome ? outcome.error : outcome.answer.throttled;
		if (error) failures.push({ item, error, triesMade: outcome.triesMade, at: clock.now() });
	});
	return {
		failedItems: failures.map((failure) => failure.item),
		failures,
		durationMs: clock.now(),
	};
}

export async function runCampaign(
	campaign: CampaignSettings,
	provider: BudgetTellingProvider,
	clock: VirtualClock,
): Promise<CampaignOutcome> {
	return await clock.run(sendCampaign(campaign, provider, clock));
}
