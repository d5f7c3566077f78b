import { waitFor } from '../../n8n/executions';
import type { N8nRestClient } from '../../n8n/rest-client';
import type { EventRecorder } from '../../../test/e2e/event-recorder';
import { measureCase, type CaseFigures, type Load } from './measureCase';
import {
	newestExecutionId,
	retryAll,
	unfinishedExecutions,
	unfinishedSummaries,
	type Summary,
	type Unfinished,
} from './unfinishedExecutions';
import type { EventTarget } from './workflows';

export type StopSignal = 'SIGKILL' | 'SIGTERM';

export interface KillFigures extends CaseFigures {
	/** Which process was stopped and how: "SIGKILL", "SIGTERM", "webhook process SIGKILL". */
	what: string;
	/** How long it was away, from the signal until it answered again. */
	downSeconds: number;
	/** Executions n8n accepted and did not finish (the stop cut them short), by status. */
	unfinished: string;
	/** Of the events answered 2xx that never ran: those n8n holds in an unfinished execution (its Retry runs them). */
	heldByN8n: number;
	/** Answered 2xx, never ran, in no execution n8n kept, and answered by the trigger: the trigger's own loss. */
	lostNowhereIds: string[];
	/** After a user's Retry of every crashed execution. */
	afterRetry: { lost: number; runTwice: number; failures: string[] };
}

export interface KillPlan {
	what: string;
	/** Stops the process and starts it again on the same database; resolves once its webhooks answer again. */
	restart: () => Promise<void>;
	/** Where the sender's attempts go, in turn (queue mode); the target's own URL unless given. */
	origins?: string[];
}

function describeStatuses(unfinished: Unfinished): string {
	if (unfinished.ids.length === 0) return 'none';
	return [...unfinished.statuses].map(([status, count]) => `${count} ${status}`).join(', ');
}

/** Retries what n8n shows as crashed, as a user would, then counts the lost events again. */
async function retryCrashed(
	rest: N8nRestClient,
	recorder: EventRecorder,
	target: EventTarget,
	unfinished: Unfinished,
	lostEventIds: string[],
	tag: string,
): Promise<KillFigures['afterRetry']> {
	// n8n re-runs an execution left `new` when it boots, and marks one left `running` crashed: wait for both.
	const settled = (now: Summary[]) =>
		now.every((entry) => entry.status !== 'new' && entry.status !== 'running');
	await waitFor('n8n to settle its unfinished executions', 120_000, async () =>
		settled(await unfinishedSummaries(rest, target.workflowId, 0)) ? true : undefined,
	).catch(() => undefined);
	const stillUnfinished = new Set(
		(await unfinishedSummaries(rest, target.workflowId, 0)).map((entry) => entry.id),
	);
	const failures = await retryAll(
		rest,
		unfinished.ids.filter((id) => stillUnfinished.has(id)),
	);
	const runs = recorder.runsOf(target.source);
	return {
		lost: lostEventIds.filter((id) => (runs.get(id) ?? 0) === 0).length,
		runTwice: [...runs].filter(([id, count]) => id.startsWith(`evt_${tag}_`) && count > 1).length,
		failures,
	};
}

/**
 * A burst to the target, a process stopped once a quarter of it ran and started again on the same database; the
 * sender keeps retrying every delivery not answered 2xx until it is. Then: lost and run twice, where each lost
 * event is (n8n's unfinished executions, or nowhere), and what a Retry of n8n's crashed executions recovers.
 */
export async function killMidBurst(
	rest: N8nRestClient,
	recorder: EventRecorder,
	target: EventTarget,
	load: Load,
	plan: KillPlan,
	tag: string,
): Promise<KillFigures> {
	let downSeconds = Number.NaN;
	const ranBefore = recorder.runsOf(target.source).size;
	const newestBefore = await newestExecutionId(rest, target.workflowId);
	const kill = (async () => {
		await waitFor('a quarter of the burst to run', 10 * 60_000, async () =>
			recorder.runsOf(target.source).size - ranBefore >= load.events / 4 ? true : undefined,
		);
		const killedAt = Date.now();
		await plan.restart();
		downSeconds = (Date.now() - killedAt) / 1000;
	})();
	const figures = await measureCase(rest, recorder, target, load, tag, {
		whileSending: kill,
		origins: plan.origins,
	});
	const unfinished = await unfinishedExecutions(rest, target.workflowId, newestBefore);
	const heldByN8n = figures.lostEventIds.filter((id) => unfinished.eventIds.has(id)).length;
	const byN8nStarting = new Set(figures.answeredByN8nStarting);
	const lostNowhereIds = figures.lostEventIds.filter(
		(id) => !unfinished.eventIds.has(id) && !byN8nStarting.has(id),
	);
	return {
		...figures,
		what: plan.what,
		downSeconds,
		unfinished: describeStatuses(unfinished),
		heldByN8n,
		lostNowhereIds,
		afterRetry: await retryCrashed(rest, recorder, target, unfinished, figures.lostEventIds, tag),
	};
}
