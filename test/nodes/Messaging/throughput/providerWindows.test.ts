import { sendOptions } from '../../../../nodes/Messaging/actions/common/sendOptions';
import { FixedWindowProvider, type FixedWindowSettings } from './fixedWindowProvider';
import { runCampaign, type CampaignSettings } from './simulatedProvider';
import { VirtualClock } from './virtualClock';

function defaultOf(name: string): number {
	return sendOptions.find((option) => option.name === name)!.default as number;
}

/** A campaign as the node sends it when the user set none of the throughput options. */
function withNodeDefaults(items: number): CampaignSettings {
	return {
		items,
		concurrency: defaultOf('maxConcurrency'),
		maxTries: defaultOf('maxTries429'),
		maxPerSecond: defaultOf('maxPerSecond'),
		readsBudget: true,
	};
}

const LATENCY_MS = 20;
const JITTER_MS = 5;

/** How long the node's lanes take to carry `items` one after another, at the provider's mean latency. */
function ownPaceMs(items: number, provider: FixedWindowSettings, lanes: number) {
	return Math.ceil(items / lanes) * (provider.latencyMs + provider.jitterMs / 2);
}

/**
 * The soonest a campaign can end: the windows before the last one are spent whole (the first cut short when the
 * campaign starts into it), and the last one's share goes out at the node's own pace; or, when the lanes cannot
 * fill a window, the node's own pace for the whole campaign.
 */
function timeTheWindowsAllowMs(items: number, provider: FixedWindowSettings, lanes: number) {
	const windows = Math.ceil(items / provider.quota);
	const lastWindowShare = items - (windows - 1) * provider.quota;
	const lastWindowOpensMs =
		(windows - 1) * provider.windowSeconds * 1000 - (provider.startsIntoWindowMs ?? 0);
	return Math.max(
		lastWindowOpensMs + ownPaceMs(lastWindowShare, provider, lanes),
		ownPaceMs(items, provider, lanes),
	);
}

async function campaignOfThreeQuotas(quota: number, windowSeconds: number) {
	const settings = { quota, windowSeconds, latencyMs: LATENCY_MS, jitterMs: JITTER_MS };
	const clock = new VirtualClock();
	const provider = new FixedWindowProvider(settings, clock);
	const campaign = withNodeDefaults(3 * quota);
	const outcome = await runCampaign(campaign, provider, clock);
	const allowedMs = timeTheWindowsAllowMs(campaign.items, settings, campaign.concurrency);
	return { provider, outcome, allowedMs, campaign };
}

describe('a campaign of 3 × the quota with the node’s defaults, against fixed windows (virtual time)', () => {
	it.each([
		[100, 1],
		[100, 10],
		[50, 60],
		[1000, 3600],
	])(
		'%i per %i s: every item accepted once, ≤ 1 %% answered 429, ≤ the quota per window, within 1.1 × what the windows allow',
		async (quota, windowSeconds) => {
			const { provider, outcome, allowedMs, campaign } = await campaignOfThreeQuotas(
				quota,
				windowSeconds,
			);
			const figures = {
				window: `${quota}/${windowSeconds}s`,
				requests: provider.requests.length,
				throttled: provider.throttled,
				throttledShare: provider.throttled / provider.requests.length,
				maxInOneWindow: provider.maxAcceptedInOneWindow(),
				maxInAnySpan: provider.maxAcceptedInAnySpan(),
				durationMs: outcome.durationMs,
				allowedMs,
				timeRatio: outcome.durationMs / allowedMs,
				failed: outcome.failedItems.length,
			};
			if (process.env.PRINT_BUDGET_FIGURES) console.log(JSON.stringify(figures));

			expect(outcome.failedItems).toEqual([]);
			expect(provider.accepted.map((entry) => entry.item).sort((a, b) => a - b)).toEqual(
				Array.from({ length: campaign.items }, (_, item) => item),
			);
			expect(figures.throttledShare).toBeLessThanOrEqual(0.01);
			expect(figures.maxInOneWindow).toBeLessThanOrEqual(quota);
			expect(figures.timeRatio).toBeLessThanOrEqual(1.1);
		},
	);
});

describe('the same against an unkind provider: windows on its own clock, answers overtaking each other', () => {
	it.each([
		[100, 1, 370],
		[100, 10, 6_100],
		[50, 60, 37_000],
		[1000, 3600, 2_000_000],
	])(
		'%i per %i s, starting %i ms into a window, latency 40–140 ms: every item once, ≤ 1 %% answered 429, within 1.1 × what the windows allow',
		async (quota, windowSeconds, startsIntoWindowMs) => {
			const settings = { quota, windowSeconds, latencyMs: 40, jitterMs: 100, startsIntoWindowMs };
			const clock = new VirtualClock();
			const provider = new FixedWindowProvider(settings, clock);
			const campaign = withNodeDefaults(3 * quota);
			const outcome = await runCampaign(campaign, provider, clock);
			const allowedMs = timeTheWindowsAllowMs(campaign.items, settings, campaign.concurrency);
			const figures = {
				window: `${quota}/${windowSeconds}s+${startsIntoWindowMs}ms`,
				requests: provider.requests.length,
				throttled: provider.throttled,
				maxInOneWindow: provider.maxAcceptedInOneWindow(),
				timeRatio: outcome.durationMs / allowedMs,
			};
			if (process.env.PRINT_BUDGET_FIGURES) console.log(JSON.stringify(figures));

			expect(outcome.failedItems).toEqual([]);
			expect(new Set(provider.accepted.map((entry) => entry.item)).size).toBe(campaign.items);
			expect(provider.accepted).toHaveLength(campaign.items);
			expect(provider.throttled / provider.requests.length).toBeLessThanOrEqual(0.01);
			expect(figures.maxInOneWindow).toBeLessThanOrEqual(quota);
			expect(figures.timeRatio).toBeLessThanOrEqual(1.1);
		},
	);
});

describe('a campaign that fits in what is left of the budget (virtual time)', () => {
	it('goes at the node’s own pace: 300 messages on an account of 1,000 per 60 s', async () => {
		const clock = new VirtualClock();
		const settings = { quota: 1000, windowSeconds: 60, latencyMs: LATENCY_MS, jitterMs: JITTER_MS };
		const provider = new FixedWindowProvider(settings, clock);
		const campaign = withNodeDefaults(300);
		const outcome = await runCampaign(campaign, provider, clock);
		const atOwnPaceMs = ownPaceMs(campaign.items, settings, campaign.concurrency);
		if (process.env.PRINT_BUDGET_FIGURES)
			console.log(JSON.stringify({ durationMs: outcome.durationMs, atOwnPaceMs }));

		expect(outcome.failedItems).toEqual([]);
		expect(provider.throttled).toBe(0);
		expect(outcome.durationMs).toBeLessThanOrEqual(1.1 * atOwnPaceMs);
	});
});

describe('a budget used up until a reset hours away (a daily cap; virtual time)', () => {
	const capResetSeconds = 10 * 3600;

	async function campaignPastTheCap() {
		const clock = new VirtualClock();
		const provider = new FixedWindowProvider(
			{
				quota: 100,
				windowSeconds: 1,
				cap: { quota: 250, resetSeconds: capResetSeconds },
				latencyMs: LATENCY_MS,
				jitterMs: JITTER_MS,
			},
			clock,
		);
		const campaign = withNodeDefaults(400);
		const outcome = await runCampaign(campaign, provider, clock);
		return { provider, outcome, campaign };
	}

	it('sends what the cap allows, then fails the rest at once without sending them, saying when it resets', async () => {
		const { provider, outcome, campaign } = await campaignPastTheCap();
		const lastAcceptedAt = Math.max(...provider.accepted.map((entry) => entry.at));
		if (process.env.PRINT_BUDGET_FIGURES)
			console.log(
				JSON.stringify({
					requests: provider.requests.length,
					accepted: provider.accepted.length,
					failed: outcome.failedItems.length,
					lastFailureAt: Math.max(...outcome.failures.map((failure) => failure.at)),
					lastAcceptedAt,
				}),
			);

		expect(provider.accepted).toHaveLength(250);
		expect(new Set(provider.accepted.map((entry) => entry.item)).size).toBe(250);
		expect(outcome.failedItems.sort((a, b) => a - b)).toEqual(
			Array.from({ length: campaign.items }, (_, item) => item).filter(
				(item) => !provider.accepted.some((entry) => entry.item === item),
			),
		);
		expect(provider.requests.length).toBeLessThanOrEqual(250 + campaign.concurrency);
		expect(outcome.failures.every((failure) => failure.triesMade === 1)).toBe(true);
		for (const failure of outcome.failures) expect(failure.at).toBeLessThan(lastAcceptedAt + 1000);
		const unsent = outcome.failures.filter(
			(failure) => !provider.requests.some((request) => request.item === failure.item),
		);
		expect(unsent.length).toBeGreaterThanOrEqual(150 - campaign.concurrency);
		for (const { error } of unsent)
			expect((error as Error).message).toContain(`resets in ${capResetSeconds / 3600} h`);
	});
});
