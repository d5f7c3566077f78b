import { createRequire } from 'node:module';
import path from 'node:path';

import { N8N_INSTALL_DIR } from './paths';
import type { N8nRestClient } from './rest-client';

interface ExecutionSummary {
	id: string;
	workflowId: string;
	status: string;
	mode: string;
	/** ISO time n8n stopped the execution; null while it runs. */
	stoppedAt: string | null;
}

export interface StoredNodeRun {
	data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> };
}

export interface StoredExecution extends ExecutionSummary {
	runData: Record<string, StoredNodeRun[]>;
}

/**
 * n8n stores execution data in `flatted` form; the n8n under test ships the library it uses itself. Loaded on first
 * use, not at import: a run on a fresh machine imports this before it installs n8n.
 */
function flattedOfN8n(): { parse(text: string): unknown; stringify(value: unknown): string } {
	const requireFromN8n = createRequire(
		path.join(N8N_INSTALL_DIR, 'node_modules', 'n8n', 'package.json'),
	);
	return requireFromN8n('flatted') as ReturnType<typeof flattedOfN8n>;
}

function parseFlatted(text: string): unknown {
	return flattedOfN8n().parse(text);
}

/** Execution data as n8n writes it into `execution_data.data`. */
export function stringifyFlatted(value: unknown): string {
	return flattedOfN8n().stringify(value);
}

export async function listExecutions(
	rest: N8nRestClient,
	workflowId: string,
): Promise<ExecutionSummary[]> {
	const filter = executionsFilter(workflowId);
	const page = await rest.get<{ results: ExecutionSummary[] }>(`/rest/executions?filter=${filter}`);
	return page.results;
}

/** n8n's execution-list filter for the workflow, of the given statuses or of any, ready for a query string. */
export function executionsFilter(workflowId: string, statuses?: string[]): string {
	return encodeURIComponent(
		JSON.stringify(statuses ? { workflowId, status: statuses } : { workflowId }),
	);
}

/** How many executions of the workflow n8n holds, of the given statuses or of any. */
export async function countExecutions(
	rest: N8nRestClient,
	workflowId: string,
	statuses?: string[],
): Promise<number> {
	const filter = executionsFilter(workflowId, statuses);
	const page = await rest.get<{ count: number }>(`/rest/executions?filter=${filter}`);
	return page.count;
}

/** n8n's execution list gives at most this many a page. */
const EXECUTIONS_PAGE = 100;

/**
 * Every execution of the workflow of the given statuses, newest first, read page by page (listExecutions gives n8n's
 * first page only). n8n lists by a range only with a status filter, so the statuses are required.
 */
export async function listAllExecutions(
	rest: N8nRestClient,
	workflowId: string,
	statuses: string[],
): Promise<ExecutionSummary[]> {
	const filter = executionsFilter(workflowId, statuses);
	const found: ExecutionSummary[] = [];
	for (let lastId = ''; ; ) {
		const range = lastId ? `&lastId=${lastId}` : '';
		const page = await rest.get<{ results: ExecutionSummary[] }>(
			`/rest/executions?filter=${filter}&limit=${EXECUTIONS_PAGE}${range}`,
		);
		found.push(...page.results);
		if (page.results.length < EXECUTIONS_PAGE) return found;
		lastId = page.results[page.results.length - 1].id;
	}
}

export async function readExecution(rest: N8nRestClient, id: string): Promise<StoredExecution> {
	const stored = await rest.get<ExecutionSummary & { data: string }>(`/rest/executions/${id}`);
	const data = parseFlatted(stored.data) as {
		resultData: { runData: Record<string, StoredNodeRun[]> };
	};
	return { ...stored, runData: data.resultData.runData };
}

/** An execution's whole stored data, parsed: its run data, and the stack n8n seeded it with. */
export async function readStoredData(rest: N8nRestClient, id: string): Promise<unknown> {
	const stored = await rest.get<{ data: string }>(`/rest/executions/${id}`);
	return parseFlatted(stored.data);
}

export function firstOutputOf(
	execution: StoredExecution,
	nodeName: string,
	output = 0,
): Array<Record<string, unknown>> {
	return (execution.runData[nodeName]?.[0]?.data?.main?.[output] ?? []).map((item) => item.json);
}

export async function waitFor<T>(
	what: string,
	timeoutMs: number,
	probe: () => Promise<T | undefined>,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		const found = await probe();
		if (found !== undefined) return found;
		await new Promise((resolve) => setTimeout(resolve, 300));
	}
	throw new Error(`Timed out after ${timeoutMs / 1000} s waiting for ${what}.`);
}
