import { waitFor } from '../../n8n/executions';
import type { N8nRestClient } from '../../n8n/rest-client';
import type { EventRecorder } from '../../../test/e2e/event-recorder';
import { measureCase, type CaseFigures, type Load } from './measureCase';
import type { EventTarget } from './workflows';

export type StopSignal = 'SIGKILL' | 'SIGTERM';

export interface KillFigures extends CaseFigures {
	/** Which process was stopped and how: "SIGKILL", "SIGTERM", "webhook process SIGKILL". */
	what: string;
	/** How long it was away, from the signal until it answered again. */
	downSeconds: number;
}

export interface KillPlan {
	what: string;
	/** Stops the process and starts it again on the same database; resolves once its webhooks answer again. */
	restart: () => Promise<void>;
	/** Where the sender's attempts go, in turn (queue mode); the target's own URL unless given. */
	origins?: string[];
}

/**
 * A burst to the target, a process stopped once a quarter of it ran and started again on the same database; the
 * sender keeps retrying every delivery not answered 2xx until it is. Then: lost and run twice.
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
	return { ...figures, what: plan.what, downSeconds };
}
