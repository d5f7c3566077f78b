import {
	firstOutputOf,
	listExecutions,
	readExecution,
	waitFor,
} from '../../scripts/n8n/executions';
import type { E2eContext } from './context';
import { EventRecorder } from './event-recorder';
import { assert, assertEqual, type CheckRunner } from './harness';
import {
	createBurstTargets,
	deliver,
	deliverAll,
	describeAnswers,
	duplicatesRun,
	statusEvent,
	TRIGGER_NODE_NAME,
	unfinishedExecutions,
	waitUntilRegistered,
	waitUntilRun,
	type BurstTarget,
} from './trigger-burst.e2e';
import { insertUnstartedExecution } from './unstarted-execution';

export interface TriggerRestartSettings {
	/** Within the 1,000 ids the trigger saves, so every one of them must survive the restart. */
	events: number;
	concurrency: number;
}

export const DEFAULT_TRIGGER_RESTART: TriggerRestartSettings = { events: 300, concurrency: 20 };

/**
 * One n8n process: a burst accepted (concurrent deliveries, whose saves n8n lands in whatever order they finish),
 * n8n stopped and started, every event delivered again. What n8n saved last must hold every answered id, so
 * none of the retries runs.
 */
export async function checkTriggerRestart(
	context: E2eContext,
	runner: CheckRunner,
	settings: TriggerRestartSettings = DEFAULT_TRIGGER_RESTART,
): Promise<void> {
	const recorder = new EventRecorder();
	await recorder.start();
	try {
		const { trigger } = await createBurstTargets(context, recorder, ['trigger']);
		await waitUntilRegistered(trigger);
		await runner.check(
			`${settings.events} events accepted at ${settings.concurrency} concurrent deliveries, n8n restarted, all delivered again: none runs twice`,
			async () => {
				const events = Array.from({ length: settings.events }, statusEvent);
				const first = await deliverAll(trigger.url, events, settings.concurrency);
				await waitUntilRun(context, recorder, trigger, settings.events);

				await context.restartN8n();
				await waitUntilRegistered(trigger);
				const retry = await deliverAll(trigger.url, events.reverse(), settings.concurrency);
				await waitUntilRun(context, recorder, trigger, settings.events);
				// A retry that ran would have been answered only after n8n created its execution: let it record.
				await new Promise((resolve) => setTimeout(resolve, 3000));
				const ranTwice = duplicatesRun(recorder, 'trigger');
				console.log(
					`      answers before / after the restart: ${describeAnswers(first.answers)} / ${describeAnswers(retry.answers)}; ${ranTwice} of ${settings.events} events ran twice`,
				);
				assertEqual(
					[describeAnswers(first.answers), describeAnswers(retry.answers)],
					[`${settings.events} × 200`, `${settings.events} × 200`],
					'answers before and after the restart',
				);
				assertEqual(recorder.runsOf('trigger').size, settings.events, 'distinct events run');
				assertEqual(ranTwice, 0, 'events run again after the restart');
			},
		);
	} finally {
		await recorder.stop();
	}
}

/** Enough for a batch of several executions' worth, far below the 1,000 ids the trigger saves. */
export const RECOVERED_BATCH_EVENTS = 30;
const WARM_UP_EVENTS = 5;
/** Attempts a provider makes at one delivery not answered 2xx, a second apart. */
const PROVIDER_ATTEMPTS = 20;
/** How long the recovered execution and the retries get to run every event; a lost one never does. */
const SETTLE_TIMEOUT_MS = 120_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Each event in its own POST, all at once, each sent again until answered 2xx: a provider's retries. */
async function deliverUntilAccepted(
	url: string,
	events: Array<{ event_id: string }>,
): Promise<Map<number, number>> {
	const answers = new Map<number, number>();
	const deliverOne = async (event: { event_id: string }) => {
		for (let attempt = 1; ; attempt++) {
			const { status } = await deliver(url, event);
			answers.set(status, (answers.get(status) ?? 0) + 1);
			if ((status >= 200 && status < 300) || attempt === PROVIDER_ATTEMPTS) return;
			await sleep(1000);
		}
	};
	await Promise.all(events.map(deliverOne));
	return answers;
}

/** A few events run the normal way: the first item the trigger passed on, the shape its batch items take. */
async function warmUp(
	context: E2eContext,
	recorder: EventRecorder,
	target: BurstTarget,
): Promise<Record<string, unknown>> {
	const events = Array.from({ length: WARM_UP_EVENTS }, statusEvent);
	const { answers } = await deliverAll(target.url, events, WARM_UP_EVENTS);
	assertEqual(describeAnswers(answers), `${WARM_UP_EVENTS} × 200`, 'answers to the first events');
	await waitUntilRun(context, recorder, target, WARM_UP_EVENTS);
	const runs = await listExecutions(context.rest, target.workflowId);
	const succeeded = runs.find((run) => run.status === 'success');
	assert(succeeded, `no successful execution of ${target.workflowId}: ${JSON.stringify(runs)}`);
	const [item] = firstOutputOf(await readExecution(context.rest, succeeded.id), TRIGGER_NODE_NAME);
	assert(item, `execution ${succeeded.id} has no item from the ${TRIGGER_NODE_NAME}`);
	return item;
}

/** Waits, within bounds, until each event ran and nothing of the workflow is left unstarted or running. */
async function settle(
	context: E2eContext,
	recorder: EventRecorder,
	target: BurstTarget,
	eventIds: string[],
): Promise<void> {
	const runs = recorder.runsOf(target.source);
	const settled = async () =>
		eventIds.every((id) => runs.has(id)) &&
		(await unfinishedExecutions(context.rest, target.workflowId)) === 0
			? true
			: undefined;
	// A lost event never runs: past the bound the counts below say how many.
	await waitFor('every event to run', SETTLE_TIMEOUT_MS, settled).catch(() => undefined);
	// A retry that ran is answered only once n8n created its execution: let it record.
	await sleep(3000);
}

/**
 * The batching trigger: n8n stored an execution carrying a batch but never started it (status `new`) and answered
 * the delivery with an error, so the provider retries the batch's events. At boot n8n runs every execution still
 * `new` (enqueued-execution recovery), and then the retries arrive. Each event must run once in all. The stored
 * execution is written into the database while n8n is stopped: the real case needs a kill at one exact moment.
 */
export async function checkRecoveredBatch(
	context: E2eContext,
	runner: CheckRunner,
	events = RECOVERED_BATCH_EVENTS,
): Promise<void> {
	const recorder = new EventRecorder();
	await recorder.start();
	try {
		const { batching } = await createBurstTargets(context, recorder, ['batching']);
		await waitUntilRegistered(batching);
		await runner.check(
			`an execution n8n stored with ${events} events but never started, n8n restarted, the events delivered again: each runs once`,
			async () => {
				const item = await warmUp(context, recorder, batching);
				const batch = Array.from({ length: events }, statusEvent);
				let executionId = '';
				await context.restartN8n({
					whileStopped: async () => {
						executionId = await insertUnstartedExecution(
							context.databaseFile,
							batching.workflowId,
							TRIGGER_NODE_NAME,
							batch.map((event) => ({ ...item, ...event })),
						);
					},
				});
				await waitUntilRegistered(batching);
				const answers = await deliverUntilAccepted(batching.url, [...batch].reverse());
				await settle(
					context,
					recorder,
					batching,
					batch.map((event) => event.event_id),
				);

				const recovered = await readExecution(context.rest, executionId);
				const passedOn = firstOutputOf(recovered, TRIGGER_NODE_NAME).length;
				const runs = batch.map((event) => recorder.runsOf('batching').get(event.event_id) ?? 0);
				const lost = runs.filter((count) => count === 0).length;
				const ranTwice = runs.filter((count) => count > 1).length;
				console.log(
					`      recovered execution ${executionId}: ${recovered.status}, its trigger passed on ${passedOn} of ${events} events; retries answered ${describeAnswers(answers)}; ${lost} of ${events} events lost, ${ranTwice} ran more than once`,
				);
				assert(
					recovered.runData[TRIGGER_NODE_NAME] && ['success', 'error'].includes(recovered.status),
					`n8n did not run the stored execution ${executionId}: status ${recovered.status}`,
				);
				assertEqual({ lost, ranTwice }, { lost: 0, ranTwice: 0 }, 'events lost and run twice');
			},
		);
	} finally {
		await recorder.stop();
	}
}
