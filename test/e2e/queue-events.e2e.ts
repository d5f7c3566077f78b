import { readSavedIds, type SavedEventIds } from '../../nodes/MessagingTrigger/savedEventIds';
import { countExecutions, waitFor } from '../../scripts/n8n/executions';
import type { QueueStack } from '../../scripts/queue/queue-stack';
import { runSql } from '../../scripts/queue/services';
import { EventRecorder } from './event-recorder';
import { assert, assertEqual, type CheckRunner } from './harness';
import {
	createBurstTargets,
	deliverAll,
	describeAnswers,
	duplicatesRun,
	MIN_BATCHED_EVENTS_PER_EXECUTION,
	statusEvent,
	waitUntilRegistered,
	TRIGGER_NODE_NAME,
	unfinishedExecutions,
	waitUntilRun,
	type BurstTarget,
	type RoundResult,
} from './trigger-burst.e2e';

export interface QueueEventSettings {
	events: number;
	concurrency: number;
	/** Events delivered to one process, then, once answered, again to the other. */
	retried: number;
	/** Events delivered to both processes at the same moment. */
	overlapping: number;
	/** Events run, their saved ids wiped, then delivered again. */
	unsaved: number;
	/**
	 * The same burst through n8n's Webhook node and the bare community trigger first, their rates printed beside the
	 * trigger's: figures, not guarantees (`npm run bench` holds the targets), and two thirds of the check's time.
	 */
	yardsticks: boolean;
}

export const DEFAULT_QUEUE_EVENTS: QueueEventSettings = {
	events: 1000,
	concurrency: 20,
	retried: 100,
	overlapping: 50,
	unsaved: 30,
	yardsticks: false,
};

// A sender retries after a backoff, not at once; the check only needs the first answer to have arrived.
const RETRY_AFTER_MS = 2000;

type Events = Array<ReturnType<typeof statusEvent>>;

function urlAt(target: BurstTarget, origin: string): string {
	const url = new URL(target.url);
	return `${origin}${url.pathname}`;
}

/** Half the events through the main, half through the webhook process, as a load balancer spreads them. */
async function deliverSpread(
	stack: QueueStack,
	target: BurstTarget,
	events: Events,
	concurrency: number,
) {
	const halves = [
		events.filter((_, index) => index % 2 === 0),
		events.filter((_, index) => index % 2 === 1),
	];
	const origins = [stack.main.baseUrl, stack.webhook.baseUrl];
	const rounds = await Promise.all(
		halves.map((half, index) => deliverAll(urlAt(target, origins[index]), half, concurrency / 2)),
	);
	return {
		answers: rounds.map((round) => describeAnswers(round.answers)),
		startedAt: Math.min(...rounds.map((round) => round.startedAt)),
		timings: rounds.map((round) => round.timings),
	};
}

async function measure(
	stack: QueueStack,
	recorder: EventRecorder,
	target: BurstTarget,
	settings: QueueEventSettings,
) {
	const before = recorder.runsOf(target.source).size;
	const delivered = await deliverSpread(
		stack,
		target,
		Array.from({ length: settings.events }, statusEvent),
		settings.concurrency,
	);
	await waitUntilRun(stack, recorder, target, before + settings.events);
	const seconds = ((recorder.lastRunOf(target.source) ?? Date.now()) - delivered.startedAt) / 1000;
	console.log(
		`      ${target.source}: ${(settings.events / seconds).toFixed(1)} events run/s (${seconds.toFixed(1)} s; main ${delivered.answers[0]} / webhook process ${delivered.answers[1]})`,
	);
	return { answers: delivered.answers, eventsPerSecond: settings.events / seconds };
}

function printRatios(
	triggerRate: number,
	webhook: { eventsPerSecond: number },
	bare: { eventsPerSecond: number },
) {
	const ratio = (a: number, b: number) => (a / b).toFixed(2);
	console.log(
		`      ratios: Messaging Trigger / Webhook node ${ratio(triggerRate, webhook.eventsPerSecond)}, bare trigger / Webhook node ${ratio(bare.eventsPerSecond, webhook.eventsPerSecond)}, Messaging Trigger / bare trigger ${ratio(triggerRate, bare.eventsPerSecond)}`,
	);
}

/** Until the workflow has `expected` executions, all of them finished. */
async function waitUntilExecutions(stack: QueueStack, target: BurstTarget, expected: number) {
	await waitFor(`${expected} executions of the ${target.source}, finished`, 120_000, async () => {
		const count = await countExecutions(stack.rest, target.workflowId);
		const unfinished = await unfinishedExecutions(stack.rest, target.workflowId);
		return count >= expected && unfinished === 0 ? true : undefined;
	});
}

const PROCESS_NAMES = ['main', 'webhook process'];

/** The event ids the trigger's static data holds in the database now: what every process and a restarted n8n load. */
async function savedEventIds(stack: QueueStack, target: BurstTarget): Promise<Set<string>> {
	const workflow = await stack.rest.get<{ staticData?: Record<string, SavedEventIds> | null }>(
		`/rest/workflows/${target.workflowId}`,
	);
	return new Set(readSavedIds(workflow.staticData?.[`node:${TRIGGER_NODE_NAME}`]?.recentEventIds));
}

/**
 * n8n writes static data whole and the last save to commit wins: after a restart, the retries of the events that save
 * lacks start executions again (which the workers drop, having recorded the events). Its process saves last what it
 * holds (the trigger orders a process's own saves), so it lacks only the other process's deliveries, and only the
 * newest of them: those answered after the last save of the other process it had read (a process reads the other's
 * save only when one of its deliveries arrives while that save is the newest in the database, so how many is not
 * bounded by the concurrency). In the other process's answer order they are a tail, interleaved with at most the
 * deliveries that process had in flight when that save was made: they were stored, so in it, but answered later.
 */
function restartGap(
	eventIds: string[],
	timings: Array<RoundResult['timings']>,
	saved: ReadonlySet<string>,
	inFlightPerProcess: number,
) {
	const missing = eventIds.filter((id) => !saved.has(id));
	const ofProcess = (index: number) => missing.filter((id) => timings[index].has(id)).length;
	const lacking = [0, 1].filter((index) => ofProcess(index) > 0);
	const savedAfterFirstMissing = lacking.map((index) => {
		const answers = [...timings[index].entries()].sort((a, b) => a[1].answeredAt - b[1].answeredAt);
		const first = answers.findIndex(([id]) => !saved.has(id));
		return answers.slice(first).filter(([id]) => saved.has(id)).length;
	});
	return {
		missing,
		holds:
			lacking.length <= 1 && savedAfterFirstMissing.every((count) => count <= inFlightPerProcess),
		summary: `the saved ids lacked ${ofProcess(0)} of the ${PROCESS_NAMES[0]}'s and ${ofProcess(1)} of the ${PROCESS_NAMES[1]}'s${lacking.length === 1 ? `, its newest: ${savedAfterFirstMissing[0]} saved ones answered after the first lacked (at most the ${inFlightPerProcess} it had in flight)` : ''}`,
	};
}

/**
 * Delivery events through the main and the webhook process, executions on the workers: a burst spread over both,
 * retries that arrive at the other process, and every n8n process restarted between a delivery and its retry.
 */
export async function checkQueueEvents(
	stack: QueueStack,
	runner: CheckRunner,
	settings: QueueEventSettings = DEFAULT_QUEUE_EVENTS,
): Promise<void> {
	const recorder = new EventRecorder();
	await recorder.start();
	try {
		const context = { rest: stack.rest, n8nBaseUrl: stack.main.baseUrl };
		const { trigger, batching } = await createBurstTargets(context, recorder, [
			'trigger',
			'batching',
		]);
		const yardsticks = settings.yardsticks
			? await createBurstTargets(context, recorder, ['webhook', 'bare'])
			: undefined;
		const measured = yardsticks ? [yardsticks.webhook, yardsticks.bare] : [];
		for (const target of [trigger, batching, ...measured]) {
			await waitUntilRegistered(target);
			await waitUntilRegistered({ ...target, url: urlAt(target, stack.webhook.baseUrl) });
		}
		const half = `${settings.events / 2} × 200`;
		let triggerRate = 0;
		await runner.check(
			`${settings.events} signed events spread over the main and the webhook process each run once on the workers${settings.yardsticks ? " (rates against n8n's Webhook node and the bare community trigger printed)" : ''}`,
			async () => {
				const yardstickFigures = yardsticks && {
					webhook: await measure(stack, recorder, yardsticks.webhook, settings),
					bare: await measure(stack, recorder, yardsticks.bare, settings),
				};
				const triggerFigures = await measure(stack, recorder, trigger, settings);
				triggerRate = triggerFigures.eventsPerSecond;
				if (yardstickFigures) {
					printRatios(triggerRate, yardstickFigures.webhook, yardstickFigures.bare);
				}
				assertEqual(
					triggerFigures.answers,
					[half, half],
					'answers of the main and the webhook process',
				);
				assertEqual(
					[recorder.runsOf('trigger').size, duplicatesRun(recorder, 'trigger')],
					[settings.events, 0],
					'distinct events run, events run more than once',
				);
			},
		);
		await runner.check(
			`${settings.events} signed events spread over the main and the webhook process run once through the batching trigger (defaults), each process batching its own deliveries`,
			async () => {
				const figures = await measure(stack, recorder, batching, settings);
				const executions = await countExecutions(stack.rest, batching.workflowId);
				console.log(
					`      batching: ${settings.events} events in ${executions} executions (${(settings.events / executions).toFixed(1)} per execution); ${(figures.eventsPerSecond / triggerRate).toFixed(2)} × the one-execution-per-delivery trigger's rate`,
				);
				assertEqual(figures.answers, [half, half], 'answers of the main and the webhook process');
				assertEqual(
					[recorder.runsOf('batching').size, duplicatesRun(recorder, 'batching')],
					[settings.events, 0],
					'distinct events run, events run more than once',
				);
				assert(
					settings.events / executions >= MIN_BATCHED_EVENTS_PER_EXECUTION,
					`${executions} executions for ${settings.events} events`,
				);
			},
		);
		await runner.check(
			`${settings.retried} events delivered to the main, then retried through the webhook process, run once`,
			async () => {
				const events = Array.from({ length: settings.retried }, statusEvent);
				const before = recorder.runsOf('trigger').size;
				const duplicatesBefore = duplicatesRun(recorder, 'trigger');
				const first = await deliverAll(trigger.url, events, settings.concurrency);
				await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS));
				const retry = await deliverAll(
					urlAt(trigger, stack.webhook.baseUrl),
					events,
					settings.concurrency,
				);
				assertEqual(
					[describeAnswers(first.answers), describeAnswers(retry.answers)],
					[`${settings.retried} × 200`, `${settings.retried} × 200`],
					'answers',
				);
				await waitUntilRun(stack, recorder, trigger, before + settings.retried);
				await new Promise((resolve) => setTimeout(resolve, 5000));
				const ranTwice = duplicatesRun(recorder, 'trigger') - duplicatesBefore;
				console.log(
					`      ${ranTwice} of ${settings.retried} events ran twice after their retry reached the webhook process (${first.refusals} deliveries answered 503 first, then sent again)`,
				);
				assertEqual(ranTwice, 0, 'retried events run twice');
			},
		);
		await runner.check(
			`${settings.unsaved} events run through the main, their saved ids then wiped from the database (what a webhook process killed after it queued their execution and before its save leaves), delivered again through the webhook process: new executions start on the workers and run none of them again`,
			async () => {
				const events = Array.from({ length: settings.unsaved }, statusEvent);
				const before = recorder.runsOf('trigger').size;
				const duplicatesBefore = duplicatesRun(recorder, 'trigger');
				const first = await deliverAll(trigger.url, events, settings.concurrency);
				await waitUntilRun(stack, recorder, trigger, before + settings.unsaved);
				await runSql(
					stack.services.postgres,
					`UPDATE workflow_entity SET "staticData" = NULL WHERE id = '${trigger.workflowId}'`,
				);
				assertEqual((await savedEventIds(stack, trigger)).size, 0, 'ids saved after the wipe');
				const executionsBefore = await countExecutions(stack.rest, trigger.workflowId);
				const retry = await deliverAll(
					urlAt(trigger, stack.webhook.baseUrl),
					events,
					settings.concurrency,
				);
				await waitUntilExecutions(stack, trigger, executionsBefore + settings.unsaved);
				await new Promise((resolve) => setTimeout(resolve, 5000));
				const started = (await countExecutions(stack.rest, trigger.workflowId)) - executionsBefore;
				const ranTwice = duplicatesRun(recorder, 'trigger') - duplicatesBefore;
				console.log(
					`      the retries started ${started} executions on the workers; ${ranTwice} of ${settings.unsaved} events ran twice`,
				);
				assertEqual(
					[describeAnswers(first.answers), describeAnswers(retry.answers)],
					[`${settings.unsaved} × 200`, `${settings.unsaved} × 200`],
					'answers',
				);
				assertEqual(started, settings.unsaved, 'executions the retries started');
				assertEqual(ranTwice, 0, 'events run twice');
			},
		);
		await runner.check(
			`${settings.retried} events retried after every n8n process restarted run once: the last save before the restart lacks only the newest of one process's deliveries (whole-object saves; the count printed), and the workers drop the executions their retries start`,
			async () => {
				const events = Array.from({ length: settings.retried }, statusEvent);
				const before = recorder.runsOf('trigger').size;
				const duplicatesBefore = duplicatesRun(recorder, 'trigger');
				const first = await deliverSpread(stack, trigger, events, settings.concurrency);
				await waitUntilRun(stack, recorder, trigger, before + settings.retried);
				await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS));
				const saved = await savedEventIds(stack, trigger);
				await stack.restartN8n();
				await waitUntilRegistered(trigger);
				await waitUntilRegistered({ ...trigger, url: urlAt(trigger, stack.webhook.baseUrl) });
				const executionsBefore = await countExecutions(stack.rest, trigger.workflowId);
				const retry = await deliverSpread(
					stack,
					trigger,
					[...events].reverse(),
					settings.concurrency,
				);
				const half = `${settings.retried / 2} × 200`;
				assertEqual(
					[first.answers, retry.answers],
					[
						[half, half],
						[half, half],
					],
					'answers before and after the restart',
				);
				await new Promise((resolve) => setTimeout(resolve, 5000));
				await waitUntilRun(stack, recorder, trigger, before + settings.retried);
				const ranAgain = duplicatesRun(recorder, 'trigger') - duplicatesBefore;
				const eventIds = events.map((event) => event.event_id);
				const verdict = restartGap(eventIds, first.timings, saved, settings.concurrency / 2);
				const again = eventIds.filter((id) => (recorder.runsOf('trigger').get(id) ?? 0) > 1);
				await waitUntilExecutions(stack, trigger, executionsBefore + verdict.missing.length);
				const started = (await countExecutions(stack.rest, trigger.workflowId)) - executionsBefore;
				console.log(
					`      ${ranAgain} of ${settings.retried} events ran again after the restart, though their retries started ${started} executions; ${verdict.summary}`,
				);
				assertEqual([ranAgain, again], [0, []], 'events run again, counted two ways');
				assertEqual(started, verdict.missing.length, 'executions the retries started');
				assert(verdict.holds, verdict.summary);
			},
		);
		await runner.check(
			`${settings.overlapping} events delivered to the main and the webhook process at the same moment: how many run twice is printed (two workers checking one event's executions in the same instant can both run it: docs/queue-mode.md)`,
			async () => {
				const events = Array.from({ length: settings.overlapping }, statusEvent);
				const before = recorder.runsOf('trigger').size;
				const duplicatesBefore = duplicatesRun(recorder, 'trigger');
				const rounds = await Promise.all([
					deliverAll(trigger.url, events, settings.concurrency / 2),
					deliverAll(urlAt(trigger, stack.webhook.baseUrl), events, settings.concurrency / 2),
				]);
				await waitUntilRun(stack, recorder, trigger, before + settings.overlapping);
				await new Promise((resolve) => setTimeout(resolve, 5000));
				const twice = duplicatesRun(recorder, 'trigger') - duplicatesBefore;
				console.log(
					`      answers ${rounds.map((round) => describeAnswers(round.answers)).join(' / ')}; ${twice} of ${settings.overlapping} events ran twice`,
				);
				assertEqual(
					recorder.runsOf('trigger').size,
					before + settings.overlapping,
					'distinct events run',
				);
			},
		);
		console.log(`      (Messaging Trigger in queue mode: ${triggerRate.toFixed(1)} events run/s)`);
	} finally {
		await recorder.stop();
	}
}
