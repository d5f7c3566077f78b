import fs from 'node:fs';

import { SANDBOX_SIGNING_SECRET } from '../../lib/sandbox-server';
import { countExecutions, waitFor } from '../../n8n/executions';
import type { N8nRestClient } from '../../n8n/rest-client';
import type { EventRecorder } from '../../../test/e2e/event-recorder';
import { describeAnswers, unfinishedExecutions } from '../../../test/e2e/trigger-burst.e2e';
import { percentile } from '../stats';
import { campaignDeliveries, sendAll, type Delivery, type SendResult } from './sender';
import { recordStoredRuns } from './storedRuns';
import type { EventTarget } from './workflows';

export interface Load {
	events: number;
	perPost: number;
	openRequests: number;
	/** Arrival pace; undefined: as fast as the open requests allow. */
	eventsPerSecond?: number;
}

export interface CaseFigures {
	kind: EventTarget['kind'];
	load: Load;
	/**
	 * Events run per second: distinct events run over the time from the first delivery to the last run. For the
	 * floor (nothing runs): events answered 2xx per second.
	 */
	eventsPerSecond: number;
	/** New executions of the target's workflow in n8n's execution list. */
	executions: number;
	eventsRun: number;
	p99AnswerMs: number;
	/** Answered 2xx and never ran. */
	lost: number;
	lostEventIds: string[];
	/**
	 * Of those, the ones n8n itself answered 200 "n8n is starting up. Please wait" (n8n 2.40.7 answers every request so
	 * while its migrations check runs at start): the delivery never reached the trigger.
	 */
	answeredByN8nStarting: string[];
	runTwice: number;
	/** Events whose delivery was never answered 2xx by the sender's deadline. */
	notAccepted: number;
	answers: string;
	seconds: number;
	/** n8n's peak resident memory during this case (MB), when the kernel let the bench reset its high-water mark. */
	peakRssMb?: number;
}

const SEND_DEADLINE_MS = 15 * 60_000;
/** Once every accepted event ran, a moment more: a duplicate run would land after the last first one. */
const SETTLE_MS = 2_000;
/** A case where nothing more runs for this long has lost the rest. */
const STALL_MS = 30_000;

/** Waits until every accepted event ran (or nothing more ran for STALL_MS) and no execution is unfinished. */
async function waitUntilSettled(
	rest: N8nRestClient,
	target: EventTarget,
	expected: number,
	ranSoFar: () => Promise<number>,
): Promise<void> {
	let lastCount = -1;
	let lastChangeAt = Date.now();
	await waitFor(
		`${expected} events to run through the ${target.kind} workflow`,
		20 * 60_000,
		async () => {
			const ran = await ranSoFar();
			if (ran !== lastCount) [lastCount, lastChangeAt] = [ran, Date.now()];
			if (ran < expected && Date.now() - lastChangeAt < STALL_MS) return undefined;
			return (await unfinishedExecutions(rest, target.workflowId)) === 0 ? true : undefined;
		},
	);
	await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
}

/** How often each of the case's events ran (the recorder keeps every case's runs by workflow). */
function runsOfCase(recorder: EventRecorder, target: EventTarget, eventIds: string[]): number[] {
	const runs = recorder.runsOf(target.source);
	return eventIds.map((id) => runs.get(id) ?? 0);
}

function runFigures(
	recorder: EventRecorder,
	target: EventTarget,
	eventIds: string[],
	acceptedEvents: Set<string>,
	sent: SendResult,
): Pick<
	CaseFigures,
	'eventsRun' | 'lost' | 'lostEventIds' | 'runTwice' | 'eventsPerSecond' | 'seconds'
> {
	const runs = runsOfCase(recorder, target, eventIds);
	const eventsRun = runs.filter((count) => count > 0).length;
	const lastRunAt = recorder.lastRunOf(target.source) ?? sent.endedAt;
	const seconds = ((target.kind === 'floor' ? sent.endedAt : lastRunAt) - sent.startedAt) / 1000;
	const counted = target.kind === 'floor' ? acceptedEvents.size : eventsRun;
	const lostEventIds =
		target.kind === 'floor'
			? []
			: eventIds.filter((id, index) => acceptedEvents.has(id) && runs[index] === 0);
	return {
		eventsRun,
		lost: lostEventIds.length,
		lostEventIds,
		runTwice: runs.filter((count) => count > 1).length,
		eventsPerSecond: counted / seconds,
		seconds,
	};
}

/**
 * One case: the load delivered to the target by the signed sender; then, from the recorder (what n8n's executions
 * ran) and n8n's execution list, how fast the events ran, in how many executions, and which were lost or ran twice.
 */
export async function measureCase(
	rest: N8nRestClient,
	recorder: EventRecorder,
	target: EventTarget,
	load: Load,
	tag: string,
	options: {
		/** Something done to n8n during the burst (a kill and restart): awaited before the runs are counted. */
		whileSending?: Promise<void>;
		/** The origins a load balancer spreads the attempts over, in turn (queue mode's webhook processes). */
		origins?: string[];
	} = {},
): Promise<CaseFigures> {
	// Handled now, awaited below: a failure must not surface as an unhandled rejection meanwhile.
	options.whileSending?.catch(() => undefined);
	const deliveries = campaignDeliveries(tag, load.events, load.perPost);
	const executionsBefore = await countExecutions(rest, target.workflowId);
	let attempt = 0;
	const urls = (options.origins ?? [new URL(target.url).origin]).map((origin) =>
		urlAt(target, origin),
	);
	const sent = await sendAll({
		url: () => urls[attempt++ % urls.length],
		deliveries,
		openRequests: load.openRequests,
		eventsPerSecond: load.eventsPerSecond,
		signingSecret: SANDBOX_SIGNING_SECRET,
		deadlineMs: SEND_DEADLINE_MS,
	});
	await options.whileSending;
	const eventIds = deliveries.flatMap((delivery) => delivery.events.map((event) => event.event_id));
	const acceptedEvents = new Set(
		deliveries
			.filter((delivery) => sent.accepted.has(delivery.id))
			.flatMap((delivery) => delivery.events.map((event) => event.event_id)),
	);
	if (target.kind !== 'floor')
		await waitUntilSettled(rest, target, acceptedEvents.size, async () => {
			await recordStoredRuns(rest, recorder, target);
			return runsOfCase(recorder, target, eventIds).filter((count) => count > 0).length;
		});
	// Runs stored while the case settled: a duplicate would be one.
	await recordStoredRuns(rest, recorder, target);
	const figures = runFigures(recorder, target, eventIds, acceptedEvents, sent);
	return {
		kind: target.kind,
		load,
		...figures,
		answeredByN8nStarting: answeredByN8nStarting(deliveries, figures.lostEventIds, sent),
		executions: (await countExecutions(rest, target.workflowId)) - executionsBefore,
		p99AnswerMs: sent.answerMs.length > 0 ? percentile(sent.answerMs, 0.99) : Number.NaN,
		notAccepted: load.events - acceptedEvents.size,
		answers: describeAnswers(sent.answers),
	};
}

/** n8n's own answer to every request while it starts (abstract-server.js), status 200. */
export const N8N_STARTING_ANSWER = 'n8n is starting up. Please wait';

/** Lost events whose delivery n8n answered with N8N_STARTING_ANSWER: they never reached the trigger. */
function answeredByN8nStarting(
	deliveries: Delivery[],
	lostEventIds: string[],
	sent: SendResult,
): string[] {
	const lost = new Set(lostEventIds);
	return deliveries
		.filter((delivery) => sent.acceptedAnswers.get(delivery.id)?.body === N8N_STARTING_ANSWER)
		.flatMap((delivery) => delivery.events.map((event) => event.event_id))
		.filter((id) => lost.has(id));
}

/** The target's webhook at another n8n process (queue mode: a webhook process, not the main). */
export function urlAt(target: EventTarget, origin: string): string {
	return `${origin}${new URL(target.url).pathname}`;
}

/**
 * Starts n8n's high-water mark afresh (`clear_refs` 5, Linux 4.0 on), so the next reading is one case's peak, not
 * the highest of every case before it. False when the kernel refused.
 */
export function resetPeakRss(pid: number): boolean {
	try {
		fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
		return true;
	} catch {
		return false;
	}
}

/** n8n's peak resident memory since it started or since resetPeakRss (the kernel's high-water mark), in MB. */
export function peakRssMb(pid: number): number {
	const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
	const match = /^VmHWM:\s+(\d+) kB/m.exec(status);
	return match ? Number(match[1]) / 1024 : Number.NaN;
}
