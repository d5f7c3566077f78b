import { logNormal, uniform, type Random } from '../random';
import type { Channel, ErrorDetail, FailingRecipient, RealisticLifecycle } from '../types';
import { planStatuses, type PlannedStatus } from './status-plan';

/** A status and how long after the previous one (or the acceptance) it happens, already scaled. */
export interface TimedStatus extends PlannedStatus {
	afterMs: number;
}

export const DEFAULT_FAILED_SHARE = 0.03;

/** The handset or WhatsApp answers: most within seconds, a long tail later. */
const DELIVERED_SHAPE = { medianMs: 3000, sigma: 0.5, minMs: 500, maxMs: 30_000 };
/** People read when they look at their phone: tens of seconds, sometimes minutes. */
const READ_SHAPE = { medianMs: 10_000, sigma: 0.8, minMs: 1000, maxMs: 120_000 };
const SENT_WITHIN_MS = { min: 1000, max: 3000 };

const FAILURES: Record<Channel, ErrorDetail[]> = {
	sms: [
		{ code: 'carrier_rejected', message: 'The carrier rejected the message' },
		{ code: 'number_inactive', message: 'The recipient number is not in service' },
	],
	whatsapp: [
		{ code: 'message_undeliverable', message: 'WhatsApp could not deliver the message' },
		{ code: 'not_on_whatsapp', message: 'Recipient number is not registered on WhatsApp' },
	],
};

export interface RealisticPlanInput {
	channel: Channel;
	to: string;
	failingRecipients: readonly FailingRecipient[];
	random: Random;
	failedShare: number;
	timeScale: number;
}

/**
 * The statuses a message goes through with realistic delays. WhatsApp messages are acknowledged `sent`, so their
 * `sent` here is the provider confirming it (an event, no new status). A seeded failing recipient keeps its
 * seeded path; any other fails with `failedShare` odds: sent, then failed instead of delivered.
 * The random draws come in a fixed order, so one seed gives one plan.
 */
export function planRealistic(input: RealisticPlanInput): TimedStatus[] {
	const { random, timeScale } = input;
	const failsAtRandom = random.next() < input.failedShare;
	const failure = FAILURES[input.channel][Math.floor(random.next() * 2)];
	const sentAfter = uniform(random, SENT_WITHIN_MS.min, SENT_WITHIN_MS.max);
	const deliveredAfter = logNormal(random, DELIVERED_SHAPE);
	const readAfter = logNormal(random, READ_SHAPE);
	const delays = [sentAfter, deliveredAfter, readAfter].map((ms) => ms * timeScale);

	const seeded = input.failingRecipients.some(
		(recipient) => recipient.to === input.to && recipient.channel === input.channel,
	);
	let statuses: PlannedStatus[];
	if (seeded) statuses = planStatuses(input.channel, input.to, input.failingRecipients);
	else if (failsAtRandom)
		statuses = [
			{ status: 'sent', error: null },
			{ status: 'failed', error: failure },
		];
	else
		statuses = ['sent', 'delivered', ...(input.channel === 'whatsapp' ? ['read'] : [])].map(
			(status) => ({ status, error: null }) as PlannedStatus,
		);
	return statuses.map((step, index) => ({ ...step, afterMs: delays[index] }));
}

export function checkedRealistic(config: RealisticLifecycle): RealisticLifecycle {
	const { timeScale = 1, failedShare = DEFAULT_FAILED_SHARE, seed = 0 } = config;
	const unknown = Object.keys(config).filter(
		(key) => !['mode', 'timeScale', 'seed', 'failedShare'].includes(key),
	);
	if (unknown.length > 0)
		throw new Error(
			`Unknown lifecycle setting ${unknown.join(', ')}; use mode, timeScale, seed, failedShare`,
		);
	if (typeof timeScale !== 'number' || !(timeScale >= 0))
		throw new Error('lifecycle.timeScale must be a number, 0 or more (1 = real time)');
	if (typeof failedShare !== 'number' || !(failedShare >= 0 && failedShare <= 1))
		throw new Error('lifecycle.failedShare must be a number from 0 to 1');
	if (!Number.isInteger(seed)) throw new Error('lifecycle.seed must be an integer');
	return config;
}
