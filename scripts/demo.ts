/**
 * `npm run demo`: every example workflow run through n8n (headless, `n8n execute`) against the sandbox, an
 * inbound WhatsApp message answered through the active Messaging Trigger, then what was sent, the
 * acknowledgements and the delivery events that followed, and an approval round trip (Send and Wait: asked, link
 * opened, resumed) through the running n8n, and a customer's two messages answered by the WhatsApp assistant
 * example's AI Agent (the local model double as its model, its memory per sender). With
 * MESSAGING_BASE_URL and MESSAGING_API_KEY set, the same examples run against that provider instead.
 */
import path from 'node:path';

import { askTheAssistant, assistantTable } from './lib/demo-ai-assistant';
import { answerInboundMessage, inboundTable } from './lib/demo-inbound';
import { reportIsComplete, reportTable, runDeliveryReport } from './lib/demo-report';
import { renderTable, truncate } from './lib/demo-tables';
import { showApprovalRoundTrip } from './lib/demo-approval';
import { loadExamples, waitsForAnswer, type Example } from './lib/examples';
import { startLocalStack, type LocalStack } from './lib/local-stack';
import { loadOrCreateOwnerAccount } from './lib/owner-account';
import { SandboxAdmin, type RecordedRequest } from './lib/sandbox-admin';
import { ModelDoubleAdmin } from './model-double/admin';
import { executeWorkflow, outputItemsOf } from './n8n/cli';
import { ensureN8nInstalled } from './n8n/install';
import { CACHE_DIR } from './n8n/paths';

interface Sent {
	example: Example;
	nodeName: string;
	ack?: { message_id: string; status: string; channel: string };
	error?: string;
}

/** Lifecycle steps a little apart, so the events are seen to follow the acknowledgements. */
const DEMO_LIFECYCLE_STEP_MS = 400;
const EVENTS_WAIT_MS = 20_000;

function providerFromEnvironment(): { baseUrl: string; apiKey: string } | undefined {
	const baseUrl = process.env.MESSAGING_BASE_URL;
	const apiKey = process.env.MESSAGING_API_KEY;
	if (!baseUrl && !apiKey) return undefined;
	if (!baseUrl || !apiKey)
		throw new Error(
			'Set both MESSAGING_BASE_URL and MESSAGING_API_KEY to run against a provider, or neither for the sandbox.',
		);
	return { baseUrl, apiKey };
}

/** Examples `n8n execute` runs to the end; one that waits for an answer gets its own round trip below. */
function isRunnable(example: Example): boolean {
	return (
		example.messagingNodes.length > 0 &&
		!waitsForAnswer(example) &&
		example.workflow.nodes.some((node) => node.type === 'n8n-nodes-base.manualTrigger')
	);
}

async function main(): Promise<number> {
	const provider = providerFromEnvironment();
	const examples = loadExamples();
	const runnable = examples.filter(isRunnable);
	if (provider) {
		console.log(
			`REAL PROVIDER: the examples will send ${runnable.length} real message(s) through ${provider.baseUrl} (MESSAGING_BASE_URL),`,
		);
		console.log(
			'with the recipients, template ids and names written in examples/. Press Ctrl-C now to stop.\n',
		);
	} else {
		console.log(
			'Running the examples against the local sandbox (set MESSAGING_BASE_URL and MESSAGING_API_KEY for a real provider).\n',
		);
	}
	await ensureN8nInstalled((line) => console.log(`› ${line}`));
	const userFolder = path.join(CACHE_DIR, provider ? 'demo-provider' : 'demo');
	let stack: LocalStack | undefined;
	try {
		stack = await startLocalStack({
			userFolder,
			packDir: path.join(CACHE_DIR, 'pack'),
			reusePack: true,
			examples,
			owner: loadOrCreateOwnerAccount(userFolder),
			provider,
			log: (line) => console.log(`› ${line}`),
		});
		const admin = stack.sandbox ? new SandboxAdmin(stack.sandbox.baseUrl) : undefined;
		await admin?.configure({ lifecycle: { stepDelayMs: DEMO_LIFECYCLE_STEP_MS } });

		const sent: Sent[] = [];
		const routed: Sent[] = [];
		for (const example of runnable) {
			console.log(`› Running "${example.workflow.name}"`);
			try {
				const run = await executeWorkflow(stack.cli, example.workflow.id);
				for (const node of example.messagingNodes) {
					for (const ack of outputItemsOf(run, node.name))
						sent.push({ example, nodeName: node.name, ack: ack as Sent['ack'] });
					// Rows the example routes to its error branch on purpose (a bad number, a refused template).
					for (const row of outputItemsOf(run, node.name, 1))
						routed.push({ example, nodeName: node.name, error: String(row.error) });
				}
			} catch (error) {
				sent.push({
					example,
					nodeName: example.messagingNodes[0].name,
					error: (error as Error).message.split('\n').slice(0, 3).join(' '),
				});
			}
		}

		const inbound = admin
			? await answerInboundMessage(admin, stack.n8n.baseUrl, examples)
			: undefined;
		if (inbound) {
			const ack = (inbound.reply?.response as { body?: Sent['ack'] } | undefined)?.body;
			sent.push({
				example: inbound.example,
				nodeName: 'Reply in the open session',
				...(ack?.message_id ? { ack } : { error: 'no reply to the inbound message' }),
			});
		}

		console.log(
			`\nWhat was sent${admin ? ' (as the sandbox received it)' : ''} and the acknowledgements\n`,
		);
		console.log(admin ? sentTable(sent, await admin.requests()) : acknowledgementTable(sent));
		if (inbound)
			console.log(
				`\nA customer wrote on WhatsApp: the signed inbound event went to the active Messaging Trigger, and the workflow answered\n\n${inboundTable(inbound)}`,
			);
		if (admin) console.log(`\n${await eventsTable(admin, sent)}`);
		if (routed.length) {
			console.log(
				'\nRows sent down the error output (On Error → Continue (using error output)), as the example intends\n',
			);
			console.log(
				renderTable(
					['example', 'node', 'error'],
					routed.map(({ example, nodeName, error }) => [
						shortName(example),
						nodeName,
						truncate(error ?? '', 90),
					]),
				),
			);
		}
		const approvalOk = admin ? await showApprovalRoundTrip(stack, admin) : true;
		const assistant = admin
			? await askTheAssistant(
					admin,
					new ModelDoubleAdmin(stack.modelDouble.baseUrl),
					stack.n8n.baseUrl,
					examples,
				)
			: undefined;
		if (assistant)
			console.log(
				`\nA customer wrote twice to the WhatsApp assistant: n8n's AI Agent answered through the local model double, which echoes the message and the earlier ones the agent's memory gave it\n\n${assistantTable(assistant)}`,
			);
		const assistantOk = assistant?.every((exchange) => exchange.reply) ?? true;
		const report = admin
			? await runDeliveryReport(admin, stack.rest, stack.n8n.baseUrl, examples)
			: undefined;
		if (report)
			console.log(
				`\nA WhatsApp campaign of 200 messages sent ${report.events} status events, one per request, to the delivery report example: n8n ran them in ${report.executions.length} executions, each counting its batch per status\n\n${reportTable(report)}`,
			);
		const reportOk = report ? reportIsComplete(report) : true;
		const failed = sent.filter((entry) => entry.error);
		for (const entry of failed) console.log(`\n✗ ${entry.example.workflow.name}: ${entry.error}`);
		console.log(
			`\n${sent.length - failed.length} of ${sent.length} sends acknowledged${routed.length ? `; ${routed.length} rows on error outputs` : ''}.`,
		);
		return failed.length === 0 && sent.length > 0 && approvalOk && assistantOk && reportOk ? 0 : 1;
	} finally {
		await stack?.stop();
	}
}

function sentTable(sent: Sent[], requests: RecordedRequest[]): string {
	const rows = sent.map(({ example, ack, error }) => {
		const request = requests.find(
			(candidate) =>
				(candidate.response as { body?: { message_id?: string } })?.body?.message_id ===
				ack?.message_id,
		);
		const fields = (request?.fields ?? {}) as Record<string, string>;
		return [
			shortName(example),
			request ? request.path : '-',
			fields.to ?? '-',
			truncate(request ? describeContent(fields) : (error ?? ''), 70),
			ack ? `${ack.message_id}  ${ack.status}  ${ack.channel}` : 'FAILED',
		];
	});
	return renderTable(['example', 'endpoint', 'to', 'content', 'acknowledgement'], rows);
}

function acknowledgementTable(sent: Sent[]): string {
	const rows = sent.map(({ example, nodeName, ack, error }) => [
		shortName(example),
		nodeName,
		ack
			? `${ack.message_id}  ${ack.status}  ${ack.channel}`
			: `FAILED: ${truncate(error ?? '', 60)}`,
	]);
	return renderTable(['example', 'node', 'acknowledgement'], rows);
}

function describeContent(fields: Record<string, string>): string {
	if (fields.template_id)
		return `DLT ${fields.template_id} ${fields.content}${fields.callback_url ? ' + callback_url' : ''}`;
	if (fields.type === 'template')
		return `template ${fields.template_name} ${fields.components ?? ''}`;
	return `session "${fields.text}"`;
}

function shortName(example: Example): string {
	return example.file.replace(/\.json$/, '');
}

/** Waits for the SMS sends to reach a final status at their callback URL, then lists every delivery attempt. */
async function eventsTable(admin: SandboxAdmin, sent: Sent[]): Promise<string> {
	const withCallback = new Set(
		(await admin.requests())
			.filter((request) => (request.fields as Record<string, unknown> | undefined)?.callback_url)
			.map((request) => (request.response as { body?: { message_id?: string } })?.body?.message_id),
	);
	const smsIds = new Set(
		sent
			.filter((entry) => entry.ack?.channel === 'sms' && withCallback.has(entry.ack.message_id))
			.map((entry) => entry.ack!.message_id),
	);
	const deadline = Date.now() + EVENTS_WAIT_MS;
	let deliveries = await admin.webhookDeliveries();
	const finished = () =>
		[...smsIds].every((id) =>
			deliveries.some(
				(attempt) =>
					attempt.messageId === id &&
					['delivered', 'failed', 'undelivered'].includes(String(attempt.messageStatus)),
			),
		);
	while (!finished() && Date.now() < deadline) {
		await new Promise((resolve) => setTimeout(resolve, 300));
		deliveries = await admin.webhookDeliveries();
	}
	const requests = await admin.requests();
	const ackedAt = (messageId: unknown) =>
		Number(
			requests.find(
				(request) =>
					(request.response as { body?: { message_id?: string } })?.body?.message_id === messageId,
			)?.receivedAt ?? 0,
		);
	const rows = deliveries.map((attempt) => [
		attempt.eventType === 'message.inbound'
			? 'inbound'
			: `+${((Number(attempt.at) - ackedAt(attempt.messageId)) / 1000).toFixed(1)} s`,
		String(attempt.messageId),
		String(attempt.messageStatus ?? attempt.eventType),
		new URL(String(attempt.url)).pathname,
		attempt.status ? `HTTP ${attempt.status}` : String(attempt.error ?? 'no answer'),
	]);
	const heading =
		'Events the sandbox POSTed (signed) to n8n: to the callback URL or the account webhook, each an active Messaging Trigger';
	return rows.length
		? `${heading}\n\n${renderTable(['after ack', 'message', 'status', 'to n8n', 'n8n answered'], rows)}`
		: `${heading}: none arrived in ${EVENTS_WAIT_MS / 1000} s.`;
}

main().then(
	(code) => process.exit(code),
	(error: Error) => {
		console.error(error.message);
		process.exit(1);
	},
);
