import { executionsFilter, listAllExecutions, readStoredData } from '../../n8n/executions';
import type { N8nRestClient } from '../../n8n/rest-client';

/** Statuses of an execution n8n accepted and did not run to its end. */
const UNFINISHED = ['crashed', 'error', 'canceled', 'new', 'running', 'unknown'];

export interface Unfinished {
	/** By status, as n8n's execution list shows them once n8n is back. */
	statuses: Map<string, number>;
	/** Event ids that n8n holds in those executions (the trigger's output it seeded them with). */
	eventIds: Set<string>;
	ids: string[];
}

export interface Summary {
	id: string;
	status: string;
}

/** Executions of the workflow newer than `afterId` that n8n did not finish: ids and statuses only. */
export async function unfinishedSummaries(
	rest: N8nRestClient,
	workflowId: string,
	afterId: number,
): Promise<Summary[]> {
	return (await listAllExecutions(rest, workflowId, UNFINISHED)).filter(
		(entry) => Number(entry.id) > afterId,
	);
}

/** Executions of the workflow newer than `afterId` that n8n did not finish, and the events they hold. */
export async function unfinishedExecutions(
	rest: N8nRestClient,
	workflowId: string,
	afterId: number,
): Promise<Unfinished> {
	const found: Unfinished = { statuses: new Map(), eventIds: new Set(), ids: [] };
	for (const { id, status } of await unfinishedSummaries(rest, workflowId, afterId)) {
		found.ids.push(id);
		found.statuses.set(status, (found.statuses.get(status) ?? 0) + 1);
		for (const eventId of await seededEventIds(rest, id)) found.eventIds.add(eventId);
	}
	return found;
}

/** n8n creates a webhook's execution with the trigger's items on its stack: those are the events it accepted. */
async function seededEventIds(rest: N8nRestClient, id: string): Promise<string[]> {
	const data = (await readStoredData(rest, id)) as {
		executionData?: {
			nodeExecutionStack?: Array<{
				data?: { main?: Array<Array<{ json: { event_id?: string } }>> };
			}>;
		};
	};
	const stack = data.executionData?.nodeExecutionStack ?? [];
	return stack.flatMap((entry) =>
		(entry.data?.main?.[0] ?? []).map((item) => String(item.json.event_id)),
	);
}

/** The id of the workflow's newest execution (0 if none): executions above it are the case's. */
export async function newestExecutionId(rest: N8nRestClient, workflowId: string): Promise<number> {
	const page = await rest.get<{ results: Summary[] }>(
		`/rest/executions?filter=${executionsFilter(workflowId)}&limit=1`,
	);
	return Math.max(0, ...page.results.map((entry) => Number(entry.id)));
}

/**
 * What a user does from n8n's execution list: Retry each crashed execution, with the workflow it was saved with.
 * n8n answers a retry once its execution has ended.
 */
export async function retryAll(rest: N8nRestClient, ids: string[]): Promise<string[]> {
	const failures: string[] = [];
	for (const id of ids)
		await rest
			.post(`/rest/executions/${id}/retry`, { loadWorkflow: false })
			.catch((error: Error) => failures.push(`${id}: ${error.message}`));
	return failures;
}
