import type { E2eContext } from './context';
import { EventRecorder } from './event-recorder';
import { assertEqual, type CheckRunner } from './harness';
import {
	createBurstTargets,
	deliverAll,
	describeAnswers,
	duplicatesRun,
	statusEvent,
	waitUntilRegistered,
	waitUntilRun,
} from './trigger-burst.e2e';

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
		const { trigger } = await createBurstTargets(context, recorder);
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
