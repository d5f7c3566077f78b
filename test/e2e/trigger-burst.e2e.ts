import { randomUUID } from 'node:crypto';
import path from 'node:path';

import { SIGNING_SECRET_CREDENTIAL } from '../../scripts/lib/credentials';
import { MESSAGING_TRIGGER_NODE_TYPE } from '../../scripts/lib/examples';
import { SANDBOX_SIGNING_SECRET } from '../../scripts/lib/sandbox-server';
import type { N8nRestClient } from '../../scripts/n8n/rest-client';
import { deliveryHeaders } from '../../sandbox/webhooks/signing';
import { REPO_ROOT } from '../../scripts/n8n/paths';
import type { E2eContext } from './context';
import { EventRecorder } from './event-recorder';
import { assert, assertEqual, type CheckRunner } from './harness';
import { countExecutions, waitFor } from '../../scripts/n8n/executions';

export interface BurstSettings {
	events: number;
	concurrency: number;
	/** Events delivered once, then all again in a second round: the sender retrying after lost 200s. */
	retried: number;
	/** Events delivered twice at the same moment, as two overlapping retries. */
	overlapping: number;
	/**
	 * The trigger's rate must be at least this share of the bare community trigger's: a guard against our own
	 * per-event cost growing. Measured 0.82 on 1,000 events; the margin absorbs a loaded 2-core machine.
	 */
	minRateRatio: number;
	/** The burst is delivered in this many rounds, each target in turn, so drift over the run hits all alike. */
	rounds: number;
}

/** A community trigger that does nothing but pass the body on: installed beside ours for the burst check. */
export const BARE_TRIGGER_PACKAGE_DIR = path.join(
	REPO_ROOT,
	'test',
	'e2e',
	'fixtures',
	'bare-trigger-package',
);
const BARE_TRIGGER_NODE_TYPE = 'n8n-nodes-bare-trigger-yardstick.bareTrigger';
/** The version a trigger added in the editor gets: its defaults batch events. */
export const CURRENT_TRIGGER_VERSION = 2;

export const DEFAULT_BURST: BurstSettings = {
	events: 1000,
	concurrency: 20,
	retried: 300,
	overlapping: 100,
	minRateRatio: 0.7,
	rounds: 2,
};
const RUN_TIMEOUT_MS = 600_000;

type Answers = Map<number, number>;

/** The first body seen for each status other than 200, so a failure says what n8n answered. */
const sampleBodies = new Map<number, string>();

export interface RoundResult {
	answers: Answers;
	startedAt: number;
	answeredAt: number;
	/** When each event's delivery was sent and answered (ms since the epoch). */
	timings: Map<string, { sentAt: number; answeredAt: number }>;
	/** 503s with Retry-After answered before the final answers, each followed by the sender's retry. */
	refusals: number;
}

export interface BurstTarget {
	/** `trigger`: the Messaging Trigger, one execution per delivery; `batching`: its defaults, events batched. */
	source: 'trigger' | 'batching' | 'webhook' | 'bare';
	url: string;
	workflowId: string;
	/** The webhook node gets the event as `body`; the trigger as the item itself. */
	eventIdExpression: string;
}

export function statusEvent(): {
	event_id: string;
	type: string;
	message_id: string;
	channel: string;
	status: string;
	timestamp: string;
} {
	return {
		event_id: `evt_burst_${randomUUID()}`,
		type: 'message.status',
		message_id: `msg_burst_${randomUUID()}`,
		channel: 'sms',
		status: 'delivered',
		timestamp: new Date().toISOString(),
	};
}

/** One signed POST: its status (0 when there was no answer) and the Retry-After it asked for, if any. */
async function post(url: string, event: { event_id: string }) {
	const rawBody = JSON.stringify(event);
	const headers = deliveryHeaders(
		SANDBOX_SIGNING_SECRET,
		event.event_id,
		Math.floor(Date.now() / 1000),
		rawBody,
	);
	try {
		const response = await fetch(url, { method: 'POST', headers, body: rawBody });
		const text = await response.text();
		if (response.status !== 200 && !sampleBodies.has(response.status))
			sampleBodies.set(response.status, text.slice(0, 300));
		return { status: response.status, retryAfter: Number(response.headers.get('retry-after')) };
	} catch {
		return { status: 0, retryAfter: NaN };
	}
}

/** Refusals a sender takes with a Retry-After before it gives up on a delivery, as a provider does. */
const RETRIES_AFTER_503 = 10;

/** One delivery, sent again after a 503's Retry-After as a provider would: the final status, and how often it was refused. */
export async function deliver(url: string, event: { event_id: string }) {
	let refusals = 0;
	for (;;) {
		const { status, retryAfter } = await post(url, event);
		if (status !== 503 || !(retryAfter >= 0) || refusals === RETRIES_AFTER_503)
			return { status, refusals };
		refusals++;
		await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
	}
}

/**
 * Every delivery of `events`, `concurrency` at a time, in order; the final answers counted by HTTP status, and the
 * 503s with Retry-After that came before them.
 */
export async function deliverAll(
	url: string,
	events: Array<{ event_id: string }>,
	concurrency: number,
): Promise<RoundResult> {
	const answers: Answers = new Map();
	const timings: RoundResult['timings'] = new Map();
	const startedAt = Date.now();
	let refusals = 0;
	let next = 0;
	const worker = async () => {
		while (next < events.length) {
			const event = events[next++];
			const sentAt = Date.now();
			const delivered = await deliver(url, event);
			refusals += delivered.refusals;
			timings.set(event.event_id, { sentAt, answeredAt: Date.now() });
			answers.set(delivered.status, (answers.get(delivered.status) ?? 0) + 1);
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, events.length) }, worker));
	return { answers, startedAt, answeredAt: Date.now(), timings, refusals };
}

export function describeAnswers(answers: Answers): string {
	return [...answers.entries()]
		.sort(([a], [b]) => a - b)
		.map(
			([status, count]) =>
				`${count} × ${status || 'no answer'}${status !== 200 && sampleBodies.has(status) ? ` (${sampleBodies.get(status)})` : ''}`,
		)
		.join(', ');
}

function recorderNode(
	recorder: EventRecorder,
	target: Pick<BurstTarget, 'source' | 'eventIdExpression'>,
) {
	return {
		id: randomUUID(),
		name: 'Record the event',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [260, 0] as [number, number],
		parameters: {
			method: 'POST',
			url: recorder.urlFor(target.source),
			sendBody: true,
			specifyBody: 'json',
			jsonBody: `={{ JSON.stringify({ event_id: ${target.eventIdExpression} }) }}`,
			options: {},
		},
	};
}

type RecorderNode = ReturnType<typeof recorderNode>;

async function createActiveWorkflow(
	rest: N8nRestClient,
	name: string,
	entry: Record<string, unknown>,
	recorder: RecorderNode,
): Promise<string> {
	return await rest.createActiveWorkflow({
		name,
		nodes: [entry, recorder],
		connections: {
			[entry.name as string]: { main: [[{ node: recorder.name, type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	});
}

export const TRIGGER_NODE_NAME = 'Messaging Trigger';

/** The Messaging Trigger at its current version, all channels and statuses, Drop Duplicate Events on. */
async function createTriggerWorkflow(
	rest: N8nRestClient,
	name: string,
	webhookId: string,
	parameters: Record<string, unknown>,
	recorder: RecorderNode,
): Promise<string> {
	const trigger = {
		id: randomUUID(),
		name: TRIGGER_NODE_NAME,
		type: MESSAGING_TRIGGER_NODE_TYPE,
		typeVersion: CURRENT_TRIGGER_VERSION,
		position: [0, 0],
		webhookId,
		parameters,
		credentials: { messagingWebhookApi: SIGNING_SECRET_CREDENTIAL },
	};
	return await createActiveWorkflow(rest, name, trigger, recorder);
}

type BurstSource = BurstTarget['source'];

const EVENT_ID_EXPRESSIONS: Record<BurstSource, string> = {
	trigger: '$json.event_id',
	batching: '$json.event_id',
	webhook: '$json.body.event_id',
	bare: '$json.event_id',
};

/** One source's workflow, activated: its id and the URL a provider posts to. */
type BurstWorkflow = (
	context: Pick<E2eContext, 'rest' | 'n8nBaseUrl'>,
	recorder: RecorderNode,
) => Promise<{ workflowId: string; url: string }>;

/** The Messaging Trigger with these parameters: the per-delivery and the batching source differ in nothing else. */
function triggerSource(name: string, parameters: Record<string, unknown>): BurstWorkflow {
	return async ({ rest, n8nBaseUrl }, recorder) => {
		const webhookId = randomUUID();
		const workflowId = await createTriggerWorkflow(rest, name, webhookId, parameters, recorder);
		return { workflowId, url: `${n8nBaseUrl}/webhook/${webhookId}/messaging-events` };
	};
}

const BURST_WORKFLOWS: Record<BurstSource, BurstWorkflow> = {
	trigger: triggerSource('Burst: Messaging Trigger, one execution per delivery', {
		batchWaitMs: 0,
	}),
	batching: triggerSource('Burst: Messaging Trigger, batching (defaults)', {}),
	webhook: async ({ rest, n8nBaseUrl }, recorder) => {
		const path = `burst-${randomUUID()}`;
		const entry = {
			id: randomUUID(),
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: randomUUID(),
			parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
		};
		const workflowId = await createActiveWorkflow(rest, 'Burst: n8n Webhook node', entry, recorder);
		return { workflowId, url: `${n8nBaseUrl}/webhook/${path}` };
	},
	bare: async ({ rest, n8nBaseUrl }, recorder) => {
		const webhookId = randomUUID();
		const entry = {
			id: randomUUID(),
			name: 'Bare Trigger',
			type: BARE_TRIGGER_NODE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			webhookId,
			parameters: {},
		};
		const workflowId = await createActiveWorkflow(
			rest,
			'Burst: bare community trigger',
			entry,
			recorder,
		);
		return { workflowId, url: `${n8nBaseUrl}/webhook/${webhookId}/events` };
	},
};

/**
 * The workflows of the sources asked for, each followed by the same recording HTTP Request node: the trigger one
 * execution per delivery and with its batching defaults, n8n's Webhook node, the bare community trigger. Only those:
 * every active workflow registers on each n8n process, and again at each restart.
 */
export async function createBurstTargets<S extends BurstSource>(
	context: Pick<E2eContext, 'rest' | 'n8nBaseUrl'>,
	recorder: EventRecorder,
	sources: readonly S[],
): Promise<Record<S, BurstTarget>> {
	const targets = {} as Record<S, BurstTarget>;
	for (const source of sources) {
		const target = { source, eventIdExpression: EVENT_ID_EXPRESSIONS[source] };
		const created = await BURST_WORKFLOWS[source](context, recorderNode(recorder, target));
		targets[source] = { ...target, ...created };
	}
	return targets;
}

/**
 * n8n answers "not registered" for a few seconds after activation, whatever the node (seen for both, under load).
 * A GET tells without starting anything: once the POST webhook is registered, n8n names the POST method instead.
 */
export async function waitUntilRegistered(target: { url: string; source: string }): Promise<void> {
	await waitFor(`the ${target.source} webhook to be registered`, 60_000, async () => {
		const response = await fetch(target.url);
		return (await response.text()).includes('POST') ? true : undefined;
	});
}

export async function unfinishedExecutions(
	rest: N8nRestClient,
	workflowId: string,
): Promise<number> {
	return await countExecutions(rest, workflowId, ['new', 'running']);
}

/** Waits until `expected` distinct events of the source ran and no execution of its workflow is left unfinished. */
export async function waitUntilRun(
	context: Pick<E2eContext, 'rest'>,
	recorder: EventRecorder,
	target: BurstTarget,
	expected: number,
): Promise<void> {
	await waitFor(
		`${expected} events to run through the ${target.source}`,
		RUN_TIMEOUT_MS,
		async () => (recorder.runsOf(target.source).size >= expected ? true : undefined),
	);
	await waitFor(`the ${target.source}'s executions to finish`, RUN_TIMEOUT_MS, async () =>
		(await unfinishedExecutions(context.rest, target.workflowId)) === 0 ? true : undefined,
	);
}

export interface BurstFigures {
	eventsPerSecond: number;
	seconds: number;
	answers: string[];
}

/**
 * Delivers `settings.events` to each target in `settings.rounds` rounds, the targets in turn, each round run to its
 * end (every event run, no execution unfinished) before the next starts. A target's rate: its events over the
 * sum of its rounds' times, from the first delivery to the last recorded run.
 */
async function measureBursts(
	context: E2eContext,
	recorder: EventRecorder,
	targets: BurstTarget[],
	settings: BurstSettings,
): Promise<Map<BurstTarget['source'], BurstFigures>> {
	const figures = new Map<BurstTarget['source'], BurstFigures>();
	for (const target of targets) {
		await waitUntilRegistered(target);
		figures.set(target.source, { eventsPerSecond: 0, seconds: 0, answers: [] });
	}
	const perRound = Math.ceil(settings.events / settings.rounds);
	for (let round = 0; round < settings.rounds; round++) {
		for (const target of targets) {
			const before = recorder.runsOf(target.source).size;
			const events = Array.from(
				{ length: Math.min(perRound, settings.events - round * perRound) },
				statusEvent,
			);
			const delivered = await deliverAll(target.url, events, settings.concurrency);
			await waitUntilRun(context, recorder, target, before + events.length);
			const figure = figures.get(target.source)!;
			figure.seconds +=
				((recorder.lastRunOf(target.source) ?? Date.now()) - delivered.startedAt) / 1000;
			figure.answers.push(describeAnswers(delivered.answers));
		}
	}
	for (const figure of figures.values()) figure.eventsPerSecond = settings.events / figure.seconds;
	return figures;
}

export function duplicatesRun(recorder: EventRecorder, source: string): number {
	return [...recorder.runsOf(source).values()].filter((runs) => runs > 1).length;
}

/** With 20 deliveries open at a time, a batch holds at most 20 events; this many per execution shows they batch. */
export const MIN_BATCHED_EVENTS_PER_EXECUTION = 5;

function triggerName(source: BurstTarget['source']): string {
	return source === 'batching' ? 'batching Messaging Trigger' : 'Messaging Trigger';
}

/** Retries one round after the other, then two deliveries of each event at the same moment: each event runs once. */
async function checkRetriesRunOnce(
	context: E2eContext,
	runner: CheckRunner,
	recorder: EventRecorder,
	target: BurstTarget,
	settings: BurstSettings,
): Promise<void> {
	const name = triggerName(target.source);
	await runner.check(
		`${name}: retries of ${settings.retried} events, one round after the other, are answered 200 and run once`,
		async () => {
			const events = Array.from({ length: settings.retried }, statusEvent);
			const before = recorder.runsOf(target.source).size;
			const first = await deliverAll(target.url, events, settings.concurrency);
			const retry = await deliverAll(target.url, events, settings.concurrency);
			assertEqual(
				[describeAnswers(first.answers), describeAnswers(retry.answers)],
				[`${settings.retried} × 200`, `${settings.retried} × 200`],
				'answers to both rounds',
			);
			await waitUntilRun(context, recorder, target, before + settings.retried);
			assertEqual(duplicatesRun(recorder, target.source), 0, 'events run more than once');
		},
	);
	await runner.check(
		`${name}: ${settings.overlapping} events each delivered twice at the same moment run once`,
		async () => {
			const events = Array.from({ length: settings.overlapping }, statusEvent);
			const before = recorder.runsOf(target.source).size;
			const round = await deliverAll(
				target.url,
				events.flatMap((event) => [event, event]),
				settings.concurrency,
			);
			assertEqual(describeAnswers(round.answers), `${2 * settings.overlapping} × 200`, 'answers');
			await waitUntilRun(context, recorder, target, before + settings.overlapping);
			assertEqual(
				recorder.runsOf(target.source).size,
				settings.events + settings.retried + settings.overlapping,
				'distinct events run',
			);
			assertEqual(duplicatesRun(recorder, target.source), 0, 'events run more than once');
		},
	);
}

/**
 * The single-process burst: n8n's Webhook node, the bare community trigger and the Messaging Trigger, one execution
 * per delivery and batching, each take `events` signed events at `concurrency`; then both triggers take retries, one
 * round after the other and overlapping. Every event answered 200 must run exactly once.
 */
export async function checkTriggerBurst(
	context: E2eContext,
	runner: CheckRunner,
	settings: BurstSettings = DEFAULT_BURST,
): Promise<void> {
	const recorder = new EventRecorder();
	await recorder.start();
	try {
		const targets = await createBurstTargets(context, recorder, [
			'webhook',
			'bare',
			'trigger',
			'batching',
		]);
		const figures = await measureBursts(
			context,
			recorder,
			[targets.webhook, targets.bare, targets.trigger, targets.batching],
			settings,
		);
		const rate = (source: BurstTarget['source']) => figures.get(source)!.eventsPerSecond;
		for (const [source, figure] of figures) {
			console.log(
				`      ${source}: ${figure.eventsPerSecond.toFixed(1)} events run/s (${figure.seconds.toFixed(1)} s in ${settings.rounds} rounds; ${figure.answers.join(' / ')})`,
			);
		}
		const batchedExecutions = await countExecutions(context.rest, targets.batching.workflowId);
		console.log(
			`      ratios: Messaging Trigger / Webhook node ${(rate('trigger') / rate('webhook')).toFixed(2)}, bare trigger / Webhook node ${(rate('bare') / rate('webhook')).toFixed(2)}, Messaging Trigger / bare trigger ${(rate('trigger') / rate('bare')).toFixed(2)}, batching / Webhook node ${(rate('batching') / rate('webhook')).toFixed(2)}; batching: ${settings.events} events in ${batchedExecutions} executions (${(settings.events / batchedExecutions).toFixed(1)} per execution)`,
		);
		const allAnswered = Array(settings.rounds).fill(
			`${Math.ceil(settings.events / settings.rounds)} × 200`,
		);
		for (const source of ['webhook', 'bare'] as const) {
			await runner.check(
				`the ${source === 'webhook' ? 'n8n Webhook node' : 'bare community trigger'} yardstick answers 200 to all ${settings.events} events and runs each`,
				() => {
					assertEqual(figures.get(source)!.answers, allAnswered, 'answers per round');
					assertEqual(duplicatesRun(recorder, source), 0, 'events run more than once');
				},
			);
		}
		await runner.check(
			`the Messaging Trigger, one execution per delivery, runs each of ${settings.events} signed events exactly once, answered 200, at ≥ ${settings.minRateRatio} × the bare trigger's rate`,
			() => {
				assertEqual(figures.get('trigger')!.answers, allAnswered, 'answers per round');
				assertEqual(recorder.runsOf('trigger').size, settings.events, 'distinct events run');
				assertEqual(duplicatesRun(recorder, 'trigger'), 0, 'events run more than once');
				const ratio = rate('trigger') / rate('bare');
				assert(
					ratio >= settings.minRateRatio,
					`the trigger ran ${ratio.toFixed(2)} × the bare trigger's rate; the target is ${settings.minRateRatio}`,
				);
			},
		);
		await runner.check(
			`the batching Messaging Trigger (defaults) runs each of ${settings.events} signed events exactly once, every delivery answered 200, at least ${MIN_BATCHED_EVENTS_PER_EXECUTION} events per execution`,
			() => {
				assertEqual(figures.get('batching')!.answers, allAnswered, 'answers per round');
				assertEqual(recorder.runsOf('batching').size, settings.events, 'distinct events run');
				assertEqual(duplicatesRun(recorder, 'batching'), 0, 'events run more than once');
				assert(
					settings.events / batchedExecutions >= MIN_BATCHED_EVENTS_PER_EXECUTION,
					`${batchedExecutions} executions for ${settings.events} events`,
				);
			},
		);
		for (const target of [targets.trigger, targets.batching])
			await checkRetriesRunOnce(context, runner, recorder, target, settings);
	} finally {
		await recorder.stop();
	}
}
