import { randomUUID } from 'node:crypto';
import fs from 'node:fs';

import { campaignMessagingNode } from '../../scripts/lib/campaign-nodes';
import type { SandboxAdmin } from '../../scripts/lib/sandbox-admin';
import type { N8nRestClient } from '../../scripts/n8n/rest-client';
import type { QueueStack } from '../../scripts/queue/queue-stack';
import { assert, assertEqual, type CheckRunner } from './harness';
import { listExecutions, readExecution, waitFor } from '../../scripts/n8n/executions';

export interface CampaignSettings {
	executions: number;
	messagesEach: number;
	accountPerSecond: number;
	latencyMs: number;
}

export const DEFAULT_CAMPAIGNS: CampaignSettings = {
	executions: 4,
	messagesEach: 1000,
	accountPerSecond: 100,
	latencyMs: 20,
};

/** Webhook → Code (one row per message) → Messaging: the campaign a CRM starts by calling n8n. */
export function campaignWorkflow(
	name: string,
	path: string,
	messagingOptions: Record<string, unknown>,
) {
	const rows = `const { campaign, count } = $json.body;
return Array.from({ length: count }, (_, i) => ({ json: { phone: '+9197' + String(campaign).padStart(2, '0') + String(i).padStart(6, '0'), name: 'Customer ' + i, orderId: 'C' + campaign + '-' + i } }));`;
	return {
		name,
		nodes: [
			{
				id: randomUUID(),
				name: 'Campaign',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
			},
			{
				id: randomUUID(),
				name: 'Rows',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: { jsCode: rows },
			},
			{
				id: randomUUID(),
				name: 'Send SMS',
				position: [440, 0],
				...campaignMessagingNode(messagingOptions),
			},
		],
		connections: {
			Campaign: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
			Rows: { main: [[{ node: 'Send SMS', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

export interface CampaignFigures {
	accepted: number;
	lost: number;
	duplicated: number;
	throttled: number;
	failedItems: number;
	sendSeconds: number;
	idealSeconds: number;
	executionsPerWorker: number[];
}

export function workerStarts(logFiles: string[]): number[] {
	return logFiles.map((file) =>
		fs.existsSync(file)
			? (fs.readFileSync(file, 'utf8').match(/Worker started execution/g)?.length ?? 0)
			: 0,
	);
}

async function failedItemsOf(rest: N8nRestClient, workflowId: string): Promise<number> {
	let failed = 0;
	for (const summary of await listExecutions(rest, workflowId)) {
		if (summary.status !== 'success') failed += 1_000_000;
		const execution = await readExecution(rest, summary.id);
		failed += (execution.runData['Send SMS']?.[0]?.data?.main?.[0] ?? []).filter(
			(item) => item.json.error !== undefined,
		).length;
	}
	return failed;
}

/** Starts `executions` campaigns at once, half through the main and half through the webhook process. */
async function runCampaigns(
	stack: QueueStack,
	sandbox: SandboxAdmin,
	settings: CampaignSettings,
	messagingOptions: Record<string, unknown>,
): Promise<CampaignFigures> {
	const path = `campaign-${randomUUID()}`;
	const workflowId = await stack.rest.createActiveWorkflow(
		campaignWorkflow(`Queue campaign ${path}`, path, messagingOptions),
	);
	const origins = [stack.main.baseUrl, stack.webhook.baseUrl];
	await waitFor('the campaign webhook to be registered', 60_000, async () =>
		(await (await fetch(`${stack.main.baseUrl}/webhook/${path}`)).text()).includes('POST')
			? true
			: undefined,
	);
	await sandbox.clearRequests();
	const startsBefore = workerStarts(stack.workers.map((worker) => worker.logFile));
	const campaigns = Array.from({ length: settings.executions }, (_, campaign) => campaign + 1);
	const answers = await Promise.all(
		campaigns.map(async (campaign) => {
			const response = await fetch(`${origins[campaign % 2]}/webhook/${path}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ campaign, count: settings.messagesEach }),
			});
			return response.status;
		}),
	);
	assertEqual(
		answers,
		campaigns.map(() => 200),
		'answers to the campaign webhook calls',
	);
	await waitFor(`${settings.executions} campaign executions to finish`, 600_000, async () => {
		const executions = await listExecutions(stack.rest, workflowId);
		return executions.length === settings.executions &&
			executions.every((execution) => !['new', 'running', 'waiting'].includes(execution.status))
			? true
			: undefined;
	});
	const requests = (await sandbox.requests()).filter((request) => request.path === '/v1/sms/send');
	const accepted = requests.filter(
		(request) => (request.response as { status: number }).status === 200,
	);
	const acceptedPhones = accepted.map((request) => String(request.fields?.to));
	const distinct = new Set(acceptedPhones);
	const times = requests.map((request) => Number(request.receivedAt));
	const startsAfter = workerStarts(stack.workers.map((worker) => worker.logFile));
	return {
		accepted: accepted.length,
		lost: settings.executions * settings.messagesEach - distinct.size,
		duplicated: acceptedPhones.length - distinct.size,
		throttled: requests.filter((request) => (request.response as { status: number }).status === 429)
			.length,
		failedItems: await failedItemsOf(stack.rest, workflowId),
		sendSeconds: (Math.max(...times) - Math.min(...times)) / 1000,
		idealSeconds: (settings.executions * settings.messagesEach) / settings.accountPerSecond,
		executionsPerWorker: startsAfter.map((count, index) => count - startsBefore[index]),
	};
}

function describe(figures: CampaignFigures): string {
	const {
		accepted,
		lost,
		duplicated,
		throttled,
		failedItems,
		sendSeconds,
		idealSeconds,
		executionsPerWorker,
	} = figures;
	return `${accepted} accepted, ${lost} lost, ${duplicated} duplicated, ${failedItems} items failed, ${throttled} × 429 (${((100 * throttled) / (accepted + throttled)).toFixed(2)} % of requests), send span ${sendSeconds.toFixed(1)} s = ${(sendSeconds / idealSeconds).toFixed(3)} × the ideal ${idealSeconds} s; executions per worker ${executionsPerWorker.join(' / ')}`;
}

/**
 * Campaigns run at once on the workers against one account limited to `accountPerSecond`: each execution's limiter
 * only knows its own sends, the provider's RateLimit-* answers tell it about the others.
 */
export async function checkQueueCampaigns(
	stack: QueueStack,
	sandbox: SandboxAdmin,
	runner: CheckRunner,
	settings: CampaignSettings = DEFAULT_CAMPAIGNS,
): Promise<CampaignFigures[]> {
	await sandbox.configure({
		lifecycle: null,
		latency: { fixedMs: settings.latencyMs },
		rateLimit: { perSecond: settings.accountPerSecond },
	});
	const results: CampaignFigures[] = [];
	const total = settings.executions * settings.messagesEach;
	await runner.check(
		`${settings.executions} campaigns of ${settings.messagesEach} SMS at Max Messages per Second ${settings.accountPerSecond}, at once on ${stack.workers.length} workers, account limited to ${settings.accountPerSecond}/s: every message accepted once, ≤ 1 % answered 429, the time against the ideal printed`,
		async () => {
			const figures = await runCampaigns(stack, sandbox, settings, {
				maxPerSecond: settings.accountPerSecond,
			});
			results.push(figures);
			console.log(`      ${describe(figures)}`);
			assertEqual(
				[figures.accepted, figures.lost, figures.duplicated, figures.failedItems],
				[total, 0, 0, 0],
				'accepted, lost, duplicated, failed items',
			);
			assert(
				figures.executionsPerWorker.every((count) => count > 0),
				`every worker runs campaigns: ${figures.executionsPerWorker.join(' / ')}`,
			);
			// The target is 1.1; the guard leaves room for a loaded 2-core runner, where workers' pre-passes stall each other.
			const timeRatio = figures.sendSeconds / figures.idealSeconds;
			console.log(
				`      time target ≤ 1.1 × the ideal: ${timeRatio <= 1.1 ? 'PASS' : 'FAIL'} (${timeRatio.toFixed(3)} ×)`,
			);
			assert(timeRatio <= 1.25, `the sends took ${timeRatio.toFixed(3)} × the ideal time`);
			assert(
				figures.throttled <= 0.01 * (figures.accepted + figures.throttled),
				`${figures.throttled} requests were answered 429`,
			);
		},
	);
	await runner.check(
		`the same campaigns with the Messaging node's defaults (no per-second limit): every message accepted once, no item failed`,
		async () => {
			const figures = await runCampaigns(stack, sandbox, settings, {});
			results.push(figures);
			console.log(`      ${describe(figures)}`);
			assertEqual(
				[figures.accepted, figures.lost, figures.duplicated, figures.failedItems],
				[total, 0, 0, 0],
				'accepted, lost, duplicated, failed items',
			);
		},
	);
	await sandbox.configure({ latency: null, rateLimit: null });
	return results;
}
