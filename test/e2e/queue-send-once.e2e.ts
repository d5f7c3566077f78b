import { randomUUID } from 'node:crypto';

import type { SandboxAdmin } from '../../scripts/lib/sandbox-admin';
import type { QueueStack } from '../../scripts/queue/queue-stack';
import { listExecutions, readExecution, waitFor } from '../../scripts/n8n/executions';
import { groupTimeMs } from '../../nodes/Messaging/actions/sendOnce/sendOnceRecord';
import { assert, assertEqual, type CheckRunner } from './harness';
import { campaignWorkflow, workerStarts } from './queue-campaigns.e2e';

export interface SendOnceSettings {
	messages: number;
	perSecond: number;
	latencyMs: number;
	/** The worker is killed once the sandbox has accepted this share of the campaign. */
	killAt: number;
}

export const DEFAULT_SEND_ONCE: SendOnceSettings = {
	messages: 600,
	perSecond: 50,
	latencyMs: 20,
	killAt: 0.4,
};

/** When the sandbox accepted each message of one campaign, by recipient. */
async function sendsPerPhone(
	sandbox: SandboxAdmin,
	prefix: string,
): Promise<Map<string, number[]>> {
	const sends = new Map<string, number[]>();
	for (const message of await sandbox.messages()) {
		const to = String(message.to);
		if (to.startsWith(prefix))
			sends.set(to, [...(sends.get(to) ?? []), Number(message.acceptedAt)]);
	}
	return sends;
}

/**
 * How long before the first run's newest send (the stalled tail aside) the oldest message sent twice was first sent:
 * the time of acknowledgements n8n had not yet recorded when the worker died.
 */
function unrecordedSpanMs(sends: Map<string, number[]>, stalled: Set<string>): number {
	const firsts = [...sends]
		.filter(([to]) => !stalled.has(to))
		.map(([, times]) => ({ first: Math.min(...times), times }));
	const twice = firsts.filter(({ times }) => times.length > 1);
	if (twice.length === 0) return 0;
	const rerunStart = Math.min(...twice.map(({ times }) => Math.max(...times)));
	const newest = Math.max(...firsts.map(({ first }) => first).filter((time) => time < rerunStart));
	return newest - Math.min(...twice.map(({ first }) => first));
}

interface Tally {
	twice: number;
	nothing: number;
	messages: number;
}

function tally(sends: Map<string, number[]>, expected: number): Tally {
	const counts = [...sends.values()].map((times) => times.length);
	return {
		twice: counts.filter((count) => count > 1).length,
		nothing: expected - sends.size,
		messages: counts.reduce((sum, count) => sum + count, 0),
	};
}

async function fault(stack: QueueStack, method: 'POST' | 'DELETE', rule?: object) {
	const response = await fetch(`${stack.sandbox.baseUrl}/__admin/faults`, {
		method,
		headers: { 'content-type': 'application/json' },
		body: rule ? JSON.stringify(rule) : undefined,
	});
	if (!response.ok) throw new Error(`sandbox faults ${method}: ${response.status}`);
}

async function finished(stack: QueueStack, workflowId: string, count: number) {
	return await waitFor(`${count} executions to finish`, 300_000, async () => {
		const executions = await listExecutions(stack.rest, workflowId);
		return executions.length >= count &&
			executions.every((execution) => !['new', 'running', 'waiting'].includes(execution.status))
			? executions
			: undefined;
	});
}

async function startCampaign(stack: QueueStack, path: string, campaign: number, count: number) {
	const response = await fetch(`${stack.webhook.baseUrl}/webhook/${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ campaign, count }),
	});
	assertEqual(response.status, 200, 'the campaign webhook answer');
}

async function campaignSetUp(stack: QueueStack, options: Record<string, unknown> = {}) {
	const path = `send-once-${randomUUID()}`;
	const workflowId = await stack.rest.createActiveWorkflow(
		campaignWorkflow(`Send once ${path}`, path, options),
	);
	await waitFor('the campaign webhook to be registered', 60_000, async () =>
		(await (await fetch(`${stack.main.baseUrl}/webhook/${path}`)).text()).includes('POST')
			? true
			: undefined,
	);
	return { path, workflowId };
}

/** The campaign row phones are '+9197' + campaign (2 digits) + row (6 digits). */
const phonePrefix = (campaign: number) => `+9197${String(campaign).padStart(2, '0')}`;

async function skippedIn(stack: QueueStack, executionId: string): Promise<number> {
	const execution = await readExecution(stack.rest, executionId);
	return (execution.runData['Send SMS']?.[0]?.data?.main?.[0] ?? []).filter(
		(item) => item.json.skipped === true,
	).length;
}

/**
 * Where the worker dies: once the sandbox accepted a share of the campaign (mid-run), or once it accepted every
 * message while it holds back its answers to the last `stalledRows` (the run's last stretch, before its final write).
 */
type KillPoint = { share: number } | { stalledRows: number };

/** Long enough for the kill to land while the tail waits, well inside the node's 30 s request timeout. */
const STALL_MS = 20_000;

/** The phone of a campaign's row, as campaignWorkflow's Code node writes it. */
const phoneOf = (campaign: number, row: number) =>
	`${phonePrefix(campaign)}${String(row).padStart(6, '0')}`;

/** Resolves once the campaign reached `point`, with how many messages the sandbox had accepted then. */
async function reached(
	sandbox: SandboxAdmin,
	settings: SendOnceSettings,
	prefix: string,
	point: KillPoint,
): Promise<number> {
	const target = 'share' in point ? point.share * settings.messages : settings.messages;
	const accepted = await waitFor('the campaign to reach the kill point', 120_000, async () => {
		const count = (await sendsPerPhone(sandbox, prefix)).size;
		return count >= target ? count : undefined;
	});
	// Every answer but the stalled tail's is in: a moment for the node to take them, then nothing moves.
	if ('stalledRows' in point) await new Promise((resolve) => setTimeout(resolve, 1_500));
	return accepted;
}

/** Kills the worker that runs the campaign once it reached `point`, then runs the campaign again. */
async function killAndRunAgain(
	stack: QueueStack,
	sandbox: SandboxAdmin,
	settings: SendOnceSettings,
	campaign: number,
	point: KillPoint = { share: settings.killAt },
) {
	const { path, workflowId } = await campaignSetUp(stack, {
		maxPerSecond: settings.perSecond,
		sendOnceHours: 24,
	});
	const prefix = phonePrefix(campaign);
	const logs = () => stack.workers.map((worker) => worker.logFile);
	const before = workerStarts(logs());
	const stalled = new Set<string>();
	if ('stalledRows' in point)
		for (let row = settings.messages - point.stalledRows; row < settings.messages; row++)
			stalled.add(phoneOf(campaign, row));
	for (const to of stalled)
		await fault(stack, 'POST', { match: { to }, action: { delayMs: STALL_MS } });
	await startCampaign(stack, path, campaign, settings.messages);
	const worker = await waitFor('a worker to take the campaign', 60_000, async () => {
		const index = workerStarts(logs()).findIndex((count, i) => count > before[i]);
		return index === -1 ? undefined : index;
	});
	const acceptedAtKill = await reached(sandbox, settings, prefix, point);
	await stack.killWorker(worker);
	const heldAtKill = tally(await sendsPerPhone(sandbox, prefix), settings.messages);
	if ('stalledRows' in point) await fault(stack, 'DELETE');
	await startCampaign(stack, path, campaign, settings.messages);
	const executions = await waitFor('the re-run to finish', 300_000, async () => {
		const all = await listExecutions(stack.rest, workflowId);
		const rerun = all.find((execution) => execution.status === 'success');
		return rerun ? { rerun, all } : undefined;
	});
	const sends = await sendsPerPhone(sandbox, prefix);
	return {
		acceptedAtKill,
		heldAtKill,
		after: tally(sends, settings.messages),
		unrecordedMs: unrecordedSpanMs(sends, stalled),
		skipped: await skippedIn(stack, executions.rerun.id),
	};
}

function describe(figures: Awaited<ReturnType<typeof killAndRunAgain>>): string {
	const { acceptedAtKill, heldAtKill, skipped, after, unrecordedMs } = figures;
	return `killed at ${acceptedAtKill} accepted (${heldAtKill.messages} held once the worker was dead); the re-run skipped ${skipped}, and the sandbox holds ${after.messages} messages: ${after.twice} recipients twice (the answered ones first sent in the first run's last ${unrecordedMs} ms), ${after.nothing} with nothing`;
}

/**
 * A worker SIGKILLed mid-campaign, the campaign run again: nobody gets it twice, nobody gets nothing, against a
 * provider that honours Idempotency-Key and one that ignores it; and a Retry after an ordinary error part-way.
 */
export async function checkQueueSendOnce(
	stack: QueueStack,
	sandbox: SandboxAdmin,
	runner: CheckRunner,
	settings: SendOnceSettings = DEFAULT_SEND_ONCE,
): Promise<void> {
	await sandbox.configure({
		lifecycle: null,
		latency: { fixedMs: settings.latencyMs },
		rateLimit: null,
	});
	await runner.check(
		`a worker SIGKILLed ${settings.killAt * 100} % into a campaign of ${settings.messages} SMS (${settings.perSecond}/s), the campaign run again, the sandbox honouring Idempotency-Key: 0 recipients twice, 0 with nothing`,
		async () => {
			await sandbox.configure({ idempotencyKeys: 'honour' });
			const figures = await killAndRunAgain(stack, sandbox, settings, 61);
			console.log(`      ${describe(figures)}`);
			assertEqual(
				[figures.after.twice, figures.after.nothing],
				[0, 0],
				'recipients twice, recipients with nothing',
			);
			assert(figures.skipped > 0, 'the re-run skipped what was sent before');
		},
	);
	// Acknowledgements are written in groups, in time in proportion to the record, one write at a time, the next
	// group's clock starting when a write starts. What n8n does not yet hold when the worker dies is the write under
	// way and what arrived since it started (a group's time, or the write's if longer), and what was on the wire: a
	// provider that ignores keys sends it again. A group's time is sized to what a write of the record costs, so two
	// groups' time at most; the longest group is the one at the end: a claim and an acknowledgement per message.
	const groupMs = groupTimeMs(2 * settings.messages);
	const unwrittenAtMost = Math.ceil((settings.perSecond * 2 * groupMs) / 1_000) + 4;
	await runner.check(
		`the same, the sandbox ignoring Idempotency-Key: 0 recipients with nothing, and twice only what n8n had not yet recorded when the worker died (≤ ${unwrittenAtMost}: the write under way and the group after it, two ${groupMs} ms groups at ${settings.perSecond}/s, and what was in flight)`,
		async () => {
			await sandbox.configure({ idempotencyKeys: 'ignore' });
			const figures = await killAndRunAgain(stack, sandbox, settings, 62);
			console.log(`      ${describe(figures)}`);
			assertEqual(figures.after.nothing, 0, 'recipients with nothing');
			assert(
				figures.after.twice <= unwrittenAtMost,
				`${figures.after.twice} recipients got it twice`,
			);
			assert(figures.skipped > 0, 'the re-run skipped what was sent before');
		},
	);
	// The stalled tail is accepted but never acknowledged. Of the rest, what waits unwritten is what arrived since the
	// last write started: a group's time, or the write's if longer (that write lands long before the kill). Held
	// back for the last write once fewer were to come than were held, it was up to three groups (24 in a CI run).
	const stalledRows = 5;
	const groupHolds = Math.ceil((settings.perSecond * groupMs) / 1_000);
	const tailAtMost = stalledRows + 2 * groupHolds + 4;
	await runner.check(
		`a worker SIGKILLed in the campaign's last stretch (every SMS accepted, the sandbox holding back its answers to the last ${stalledRows}), the sandbox ignoring Idempotency-Key: 0 recipients with nothing, and twice only the tail and what n8n had not yet recorded (≤ ${tailAtMost}: the ${stalledRows}, and what arrived since the last write started, a group's time or a write's, at most twice a ${groupMs} ms group, and what was in flight)`,
		async () => {
			const figures = await killAndRunAgain(stack, sandbox, settings, 64, { stalledRows });
			console.log(`      ${describe(figures)}`);
			assertEqual(figures.after.nothing, 0, 'recipients with nothing');
			assert(
				figures.after.twice >= stalledRows,
				`${figures.after.twice} recipients got it twice: the stalled tail was never acknowledged`,
			);
			assert(figures.after.twice <= tailAtMost, `${figures.after.twice} recipients got it twice`);
			assert(figures.skipped > 0, 'the re-run skipped what was sent before');
		},
	);
	await sandbox.configure({ idempotencyKeys: 'honour' });
	await runner.check(
		`a Retry after an ordinary error part-way (a 401 from the sandbox at row ${Math.round(settings.messages / 2)}, then fixed) sends only the rest`,
		async () => {
			const campaign = 63;
			const { path, workflowId } = await campaignSetUp(stack, {
				maxPerSecond: settings.perSecond,
				sendOnceHours: 24,
			});
			const prefix = phonePrefix(campaign);
			const failingPhone = phoneOf(campaign, Math.round(settings.messages / 2));
			await fault(stack, 'POST', {
				match: { to: failingPhone },
				action: { status: 401, bodyKind: 'json' },
			});
			await startCampaign(stack, path, campaign, settings.messages);
			const [failed] = await finished(stack, workflowId, 1);
			assertEqual(failed.status, 'error', 'the first execution');
			const beforeRetry = tally(await sendsPerPhone(sandbox, prefix), settings.messages);
			await fault(stack, 'DELETE');
			await stack.rest.post(`/rest/executions/${failed.id}/retry`, { loadWorkflow: false });
			const all = await finished(stack, workflowId, 2);
			const retry = all.find((execution) => execution.id !== failed.id)!;
			const after = tally(await sendsPerPhone(sandbox, prefix), settings.messages);
			const skipped = await skippedIn(stack, retry.id);
			console.log(
				`      before the Retry ${beforeRetry.messages} sent; the Retry (${retry.mode}, ${retry.status}) skipped ${skipped} and sent ${after.messages - beforeRetry.messages}: ${after.twice} recipients twice, ${after.nothing} with nothing`,
			);
			assertEqual(retry.status, 'success', 'the Retry');
			assertEqual(
				[after.twice, after.nothing],
				[0, 0],
				'recipients twice, recipients with nothing',
			);
			assertEqual(skipped, beforeRetry.messages, 'items skipped by the Retry');
		},
	);
	await sandbox.configure({ latency: null });
}
