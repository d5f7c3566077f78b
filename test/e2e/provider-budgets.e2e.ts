import { randomUUID } from 'node:crypto';

import { campaignMessagingNode } from '../../scripts/lib/campaign-nodes';
import type { RecordedRequest } from '../../scripts/lib/sandbox-admin';
import { executeWorkflow, importWorkflows, nodeOutput } from '../../scripts/n8n/cli';
import type { E2eContext } from './context';
import { assert, assertEqual, type CheckRunner } from './harness';

const WORKFLOW_ID = 'e2eBudgetWindow1';
const SEND_NODE = 'Send';
const QUOTA = 100;
const WINDOW_SECONDS = 60;
const MESSAGES = 250;

/** Manual Trigger → 250 rows → the Messaging node with every option left at its default. */
function campaignWorkflow(runTag: string) {
	const rows = `return Array.from({ length: ${MESSAGES} }, (_, i) => ({ json: { phone: '+9197' + String(10000000 + i), name: 'Customer ' + i, orderId: '${runTag}-' + i } }));`;
	return {
		id: WORKFLOW_ID,
		name: 'e2e provider budget of 100 per minute',
		nodes: [
			{
				id: randomUUID(),
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: randomUUID(),
				name: 'Rows',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: { jsCode: rows },
			},
			{ id: randomUUID(), name: SEND_NODE, position: [440, 0], ...campaignMessagingNode({}) },
		],
		connections: {
			Start: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
			Rows: { main: [[{ node: SEND_NODE, type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
		active: false,
	};
}

function orderIdOf(request: RecordedRequest): string {
	const content = request.fields?.content;
	return (JSON.parse(String(content)) as { order_id: string }).order_id;
}

/** The sandbox's windows: each opens with the first request after the previous one ended. */
function acceptedPerWindow(acceptedAt: number[]): number[] {
	const counts: number[] = [];
	let windowEndsAt = Number.NEGATIVE_INFINITY;
	for (const at of acceptedAt) {
		if (at >= windowEndsAt) {
			windowEndsAt = at + WINDOW_SECONDS * 1000;
			counts.push(0);
		}
		counts[counts.length - 1]++;
	}
	return counts;
}

/**
 * A provider allowing 100 sends per fixed 60 s window, telling every answer its budget (RateLimit-* headers,
 * Retry-After to the reset), and 250 SMS through the installed node with its defaults: every item accepted once,
 * ≤ 1 % of requests answered 429, never more than 100 accepted in a window, the first window's 100 at the node's
 * own pace (within 6 s), and done within 1.1 × the 120 s the windows allow (the third opens 120 s after the first).
 */
export async function checkProviderBudgets(
	context: E2eContext,
	runner: CheckRunner,
): Promise<void> {
	await runner.check(
		`${MESSAGES} SMS against ${QUOTA} per ${WINDOW_SECONDS} s with the node's defaults: each accepted once, ≤ 1 % answered 429, within 1.1 × what the windows allow`,
		async () => {
			const runTag = `budget-${Date.now()}`;
			await importWorkflows(context.cli, [campaignWorkflow(runTag)]);
			await context.sandbox.setRateLimit({ window: { limit: QUOTA, seconds: WINDOW_SECONDS } });
			const before = (await context.sandbox.requests()).length;
			let run;
			try {
				run = await executeWorkflow(context.cli, WORKFLOW_ID);
			} finally {
				await context.sandbox.setRateLimit(null);
			}
			const requests = (await context.sandbox.requests())
				.slice(before)
				.filter((request) => request.path === '/v1/sms/send');
			const status = (request: RecordedRequest) =>
				(request.response as { status?: number } | undefined)?.status;
			const accepted = requests.filter((request) => status(request) === 200);
			const throttled = requests.filter((request) => status(request) === 429);
			const acceptedAt = accepted
				.map((request) => Number(request.receivedAt))
				.sort((a, b) => a - b);
			const perWindow = acceptedPerWindow(acceptedAt);
			// The last window opens two windows after the first request; what it takes then is the node's own pace,
			// within the 10 % the check allows. The first window's quota may go at once, at that same pace.
			const allowedMs = (Math.ceil(MESSAGES / QUOTA) - 1) * WINDOW_SECONDS * 1000;
			const tookMs = acceptedAt[acceptedAt.length - 1] - acceptedAt[0];
			const firstWindowMs = acceptedAt[QUOTA - 1] - acceptedAt[0];
			console.log(
				`      ${requests.length} requests, ${throttled.length} × 429 (${((100 * throttled.length) / requests.length).toFixed(1)} %), accepted per window ${perWindow.join(' / ')}, the first ${QUOTA} in ${(firstWindowMs / 1000).toFixed(1)} s, first to last accepted ${(tookMs / 1000).toFixed(1)} s against ${(allowedMs / 1000).toFixed(1)} s the windows allow (${(tookMs / allowedMs).toFixed(3)} ×)`,
			);

			const output = nodeOutput(run, SEND_NODE);
			assertEqual(
				output.map((item) => item.pairedItem),
				Array.from({ length: MESSAGES }, (_, item) => ({ item })),
				'pairing of the output, in input order',
			);
			assert(
				output.every((item) => typeof item.json.message_id === 'string'),
				'every output item is an acknowledgement',
			);
			const orderIds = accepted.map(orderIdOf);
			assertEqual(new Set(orderIds).size, MESSAGES, 'distinct rows the sandbox accepted');
			assertEqual(accepted.length, MESSAGES, 'messages the sandbox accepted');
			assert(
				throttled.length <= 0.01 * requests.length,
				`${throttled.length} of ${requests.length} requests answered 429 (more than 1 %)`,
			);
			assert(
				perWindow.every((count) => count <= QUOTA),
				`accepted per window: ${perWindow.join(', ')}`,
			);
			assert(
				firstWindowMs <= 0.1 * WINDOW_SECONDS * 1000,
				`the first window's ${QUOTA} took ${firstWindowMs} ms: not the node's own pace`,
			);
			assert(
				tookMs <= 1.1 * allowedMs,
				`took ${tookMs} ms, more than 1.1 × the ${allowedMs} ms the windows allow`,
			);
		},
	);
}
