import { performance } from 'node:perf_hooks';

import { newCampaignId } from '../ids';
import type { Lifecycle } from '../messages/lifecycle';
import type { MessageStore } from '../messages/message-store';
import { DEFAULT_FAILED_SHARE, planRealistic, type TimedStatus } from '../messages/realistic-plan';
import { createRandom, randomSeed } from '../random';
import type { TimerRegistry } from '../timers';
import type {
	CampaignOptions,
	CampaignStarted,
	Channel,
	FailingRecipient,
	RealisticLifecycle,
} from '../types';

export const MAX_CAMPAIGN_MESSAGES = 100_000;
const DEFAULT_PER_SECOND = 100;
/** Acceptance runs in ticks: a timer per message would be 100,000 timers. */
const TICK_MS = 10;

export interface CampaignSources {
	messages: MessageStore;
	lifecycle: Lifecycle;
	timers: TimerRegistry;
	failingRecipients: readonly FailingRecipient[];
	clock: { now(): number };
}

interface ResolvedCampaign {
	count: number;
	channel: Channel;
	url: string;
	failedShare: number;
	perSecond: number;
	timeScale: number;
	seed: number;
}

/**
 * Accepts `count` messages at `perSecond` (of campaign time) as if sent through the API, each playing the
 * realistic lifecycle with its events posted to `url`. Every plan is drawn up front from the seed, so the answer
 * already knows how many events will come.
 */
export function startCampaign(
	sources: CampaignSources,
	options: CampaignOptions,
	url: string,
): CampaignStarted {
	const campaign = resolveCampaign(options, url, sources.lifecycle.realistic());
	const campaignId = newCampaignId(sources.clock.now());
	const random = createRandom(campaign.seed);
	const recipients = Array.from({ length: campaign.count }, (_, index) => recipientNumber(index));
	const plans = recipients.map((to) =>
		planRealistic({
			channel: campaign.channel,
			to,
			failingRecipients: sources.failingRecipients,
			random,
			failedShare: campaign.failedShare,
			timeScale: campaign.timeScale,
		}),
	);
	const intervalMs = (1000 / campaign.perSecond) * campaign.timeScale;
	acceptAtPace(sources, intervalMs, campaign.count, (index) => {
		const record = sources.messages.accept({
			channel: campaign.channel,
			to: recipients[index],
			fields: { to: recipients[index], campaign: campaignId },
			callbackUrl: campaign.url,
			idempotencyKey: null,
		});
		sources.lifecycle.play(record.id, plans[index]);
	});
	return {
		campaignId,
		count: campaign.count,
		channel: campaign.channel,
		url: campaign.url,
		seed: campaign.seed,
		failed: plans.filter(endsFailed).length,
		expectedEvents: plans.reduce((total, plan) => total + plan.length, 0),
		acceptingForMs: Math.round((campaign.count - 1) * intervalMs),
	};
}

function acceptAtPace(
	sources: CampaignSources,
	intervalMs: number,
	count: number,
	accept: (index: number) => void,
): void {
	const startedAt = performance.now();
	let next = 0;
	const tick = () => {
		const elapsed = performance.now() - startedAt;
		const due = intervalMs === 0 ? count : Math.min(count, Math.floor(elapsed / intervalMs) + 1);
		for (; next < due; next++) accept(next);
		if (next < count) sources.timers.schedule(TICK_MS, tick);
	};
	tick();
}

function endsFailed(plan: readonly TimedStatus[]): boolean {
	return plan[plan.length - 1].status === 'failed';
}

/** Distinct numbers outside the seeded ones (+91980000000x), so none fails unless the share says so. */
function recipientNumber(index: number): string {
	return `+9197${String(index + 1).padStart(8, '0')}`;
}

function resolveCampaign(
	options: CampaignOptions,
	url: string,
	inherited: RealisticLifecycle | null,
): ResolvedCampaign {
	const {
		count,
		channel = 'whatsapp',
		perSecond = DEFAULT_PER_SECOND,
		seed = randomSeed(),
	} = options;
	const failedShare = options.failedShare ?? inherited?.failedShare ?? DEFAULT_FAILED_SHARE;
	const timeScale = options.timeScale ?? inherited?.timeScale ?? 1;
	if (!Number.isInteger(count) || count < 1 || count > MAX_CAMPAIGN_MESSAGES)
		throw new Error(`'count' must be a whole number from 1 to ${MAX_CAMPAIGN_MESSAGES}`);
	if (channel !== 'sms' && channel !== 'whatsapp')
		throw new Error('\'channel\' must be "sms" or "whatsapp"');
	if (typeof failedShare !== 'number' || !(failedShare >= 0 && failedShare <= 1))
		throw new Error("'failedShare' must be a number from 0 to 1");
	if (typeof perSecond !== 'number' || !(perSecond > 0) || !Number.isFinite(perSecond))
		throw new Error("'perSecond' must be a number above 0 (messages accepted per second)");
	if (typeof timeScale !== 'number' || !(timeScale >= 0))
		throw new Error("'timeScale' must be a number, 0 or more (1 = real time)");
	if (!Number.isInteger(seed)) throw new Error("'seed' must be an integer");
	return { count, channel, url, failedShare, perSecond, timeScale, seed };
}
