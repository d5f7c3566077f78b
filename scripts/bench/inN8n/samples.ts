import type { ExecutionResult } from '../../n8n/cli';
import type { ProxiedRequest } from '../latencyProxy';
import { percentile } from '../stats';
import { rowsNodeName, sendNodeName, type Branch } from './workflows';

/** What one case measured in one repetition. */
export interface CaseSample {
	/** The sending node's own time, from n8n's run data (`executionTime`). */
	nodeMs: number;
	/** The case's branch: from its Rows node's start to the end of its sending node. */
	workflowMs: number;
	/** From the first to the last request the provider received. */
	arrivalSpanMs: number;
	/** From the first request received to the last answer given: the node's time on the wire. */
	sendingMs: number;
	requests: number;
	rateLimited: number;
	/** Rows with no accepted message. */
	failed: number;
	duplicates: number;
	p99LatencyMs: number;
}

interface TimedRun {
	startTime: number;
	executionTime: number;
	executionStatus?: string;
	error?: { message?: string };
}

function timedRun(result: ExecutionResult, nodeName: string): TimedRun {
	const run = result.data.resultData.runData[nodeName]?.[0] as TimedRun | undefined;
	if (!run) throw new Error(`n8n's run data has no run of "${nodeName}"`);
	if (run.error) throw new Error(`"${nodeName}" failed in n8n: ${run.error.message}`);
	return run;
}

/** What the provider accepted for a case's rows, row by row: rows never accepted, and acceptances beyond one. */
export function auditAnswers(requests: ProxiedRequest[], rows: number) {
	const acceptedRows = new Set<string>();
	let accepted = 0;
	for (const request of requests) {
		if (request.status < 200 || request.status > 299) continue;
		accepted++;
		acceptedRows.add(request.orderId);
	}
	return { lost: rows - acceptedRows.size, duplicates: accepted - acceptedRows.size };
}

/** When a case's requests reached the provider, and when the last answer left it. */
export function wireSpan(requests: ProxiedRequest[]) {
	return {
		firstAt: Math.min(...requests.map((request) => request.receivedAt)),
		lastAt: Math.max(...requests.map((request) => request.receivedAt)),
		lastAnswerAt: Math.max(...requests.map((request) => request.receivedAt + request.latencyMs)),
	};
}

export function sampleOf(
	branch: Branch,
	result: ExecutionResult,
	proxied: ProxiedRequest[],
): CaseSample {
	const send = timedRun(result, sendNodeName(branch));
	const rows = timedRun(result, rowsNodeName(branch));
	const requests = proxied.filter((request) => request.tag === branch.runTag);
	if (requests.length === 0)
		throw new Error(`No request of case ${branch.key} reached the provider`);
	const { firstAt, lastAt, lastAnswerAt } = wireSpan(requests);
	const audit = auditAnswers(requests, branch.count);
	return {
		nodeMs: send.executionTime,
		workflowMs: send.startTime + send.executionTime - rows.startTime,
		arrivalSpanMs: Math.max(1, lastAt - firstAt),
		sendingMs: Math.max(1, lastAnswerAt - firstAt),
		requests: requests.length,
		rateLimited: requests.filter((request) => request.status === 429).length,
		failed: audit.lost,
		duplicates: audit.duplicates,
		p99LatencyMs: percentile(
			requests.map((request) => request.latencyMs),
			0.99,
		),
	};
}

/** Cases must not overlap, or each measured the other's load too. */
export function checkRanInTurn(spans: Array<{ key: string; from: number; to: number }>): void {
	const inOrder = [...spans].sort((a, b) => a.from - b.from);
	for (let index = 1; index < inOrder.length; index++) {
		if (inOrder[index].from < inOrder[index - 1].to)
			throw new Error(
				`Cases ${inOrder[index - 1].key} and ${inOrder[index].key} ran at the same time`,
			);
	}
}

/** v1 runs the branches one after another; a case whose branch overlapped another's measured both. */
export function checkBranchesRanInTurn(branches: Branch[], result: ExecutionResult): void {
	checkRanInTurn(
		branches.map((branch) => {
			const rows = timedRun(result, rowsNodeName(branch));
			const send = timedRun(result, sendNodeName(branch));
			return { key: branch.key, from: rows.startTime, to: send.startTime + send.executionTime };
		}),
	);
}
