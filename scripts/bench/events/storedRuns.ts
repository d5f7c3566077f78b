import { firstOutputOf, listAllExecutions, readExecution } from '../../n8n/executions';
import type { N8nRestClient } from '../../n8n/rest-client';
import type { EventRecorder } from '../../../test/e2e/event-recorder';
import type { EventTarget } from './workflows';

/** Statuses of an execution n8n is done with: its run data is final. */
const DONE = ['success', 'error', 'crashed', 'canceled'];

/** The executions of each target already recorded: each is recorded once, however often the bench looks. */
const recorded = new WeakMap<EventTarget, Set<string>>();

/**
 * Records the runs of a target whose workflow has no recorder node (`runsStoredBy`): the trigger's output items of
 * each execution n8n finished, at the time n8n stopped it.
 */
export async function recordStoredRuns(
	rest: N8nRestClient,
	recorder: EventRecorder,
	target: EventTarget,
): Promise<void> {
	if (!target.runsStoredBy) return;
	const read = recorded.get(target) ?? new Set<string>();
	recorded.set(target, read);
	for (const summary of await listAllExecutions(rest, target.workflowId, DONE)) {
		if (read.has(summary.id)) continue;
		const execution = await readExecution(rest, summary.id);
		const eventIds = firstOutputOf(execution, target.runsStoredBy).map((json) =>
			String(json.event_id),
		);
		recorder.record(target.source, eventIds, Date.parse(summary.stoppedAt!));
		read.add(summary.id);
	}
}
