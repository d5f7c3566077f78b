import { answerLinksIn } from '../../scripts/lib/approval-round-trip';
import type { ModelDoubleAdmin } from '../../scripts/model-double/admin';
import {
	HUMAN_REVIEW_TYPE,
	humanReviewWorkflow,
	SMS_TOOL,
	toolNameOf,
	withExecutionOrder,
} from './agent-workflows';
import {
	agentAnswer,
	answer,
	createAgent,
	ended,
	sentSince,
	startAgent,
	toolResults,
	type ActiveAgent,
	type StartedRun,
} from './agent-runs';
import type { E2eContext } from './context';
import { assert, assertEqual, type CheckRunner } from './harness';
import { APPROVER, checkSendAndWaitAsPlainTool } from './send-and-wait-tool.e2e';

const SEND_SMS = toolNameOf(SMS_TOOL.name);

/** The review as a user sets it up: n8n's own Message, a session text to the approver, approve or decline. */
function reviewParameters(options: Record<string, unknown> = {}) {
	return {
		to: APPROVER,
		messageType: 'session',
		approvalOptions: { values: { approvalType: 'double' } },
		options,
	};
}

/** n8n's default Human review message with the tool's parameters, then the node's answer links. */
function expectedQuestion(parameters: Record<string, string>): string {
	return `The agent wants to run this tool: ${SEND_SMS}\n\nInput:\n${JSON.stringify(parameters, null, 2)}\n\n✓ Approve: `;
}

/** The model's call to the gated tool: n8n wraps the tool's arguments for Human review. */
function smsCall(parameters: Record<string, string>) {
	return [{ tool: SEND_SMS, arguments: { toolParameters: parameters, hitlParameters: {} } }];
}

export async function checkHumanReview(
	context: E2eContext,
	runner: CheckRunner,
	model: ModelDoubleAdmin,
): Promise<void> {
	await checkHumanReviewType(context, runner);
	let reviewed: ActiveAgent | undefined;
	await runner.check(
		'an agent whose Send SMS tool is gated by Human review activates',
		async () => {
			reviewed = await createAgent(
				context,
				humanReviewWorkflow('AI agent: SMS after human review', SMS_TOOL, reviewParameters()),
			);
		},
	);
	// The approver wrote earlier, so a session text may reach them.
	await context.sandbox.simulateInbound({ from: APPROVER, text: 'Ready to review' });
	try {
		if (reviewed) {
			await checkApproved(context, runner, model, reviewed);
			await checkDeclined(context, runner, model, reviewed);
		}
		await checkTimedOut(context, runner, model);
		await checkLegacyOrder(context, runner, model);
		await checkSendAndWaitAsPlainTool(context, runner, model);
	} finally {
		await model.echo();
	}
}

async function checkHumanReviewType(context: E2eContext, runner: CheckRunner): Promise<void> {
	await runner.check(
		'n8n generates Human review from the installed package: n8n-nodes-messaging.messagingHitlTool, WhatsApp Send and Wait, Approval only, with its own Message',
		async () => {
			const types =
				await context.rest.get<Array<{ name: string; properties: Array<Record<string, unknown>> }>>(
					'/types/nodes.json',
				);
			const review = types.find((type) => type.name === HUMAN_REVIEW_TYPE);
			assert(review, `${HUMAN_REVIEW_TYPE} is missing from /types/nodes.json`);
			const named = (name: string) =>
				review.properties
					.filter((property) => property.name === name)
					.map((property) => [property.type, property.default]);
			assertEqual(named('resource'), [['hidden', 'whatsapp']], 'resource');
			assert(
				named('operation').every(([type, value]) => type === 'hidden' && value === 'sendAndWait'),
				`operation: ${JSON.stringify(named('operation'))}`,
			);
			assertEqual(named('responseType'), [['hidden', 'approval']], 'responseType');
			assertEqual(
				named('message'),
				[
					[
						'string',
						'=The agent wants to run this tool: {{ $tool.name }}\n\nInput:\n{{ $tool.parameters }}',
					],
				],
				'message',
			);
		},
	);
}

/** Exactly one WhatsApp went out, to the approver, and no SMS; returns its text and the links in it. */
async function checkAsked(context: E2eContext, started: StartedRun) {
	assertEqual(started.execution.status, 'waiting', 'status of the execution once asked');
	const sent = await sentSince(context, started.sentBefore);
	assertEqual(
		sent.map((request) => [request.path, request.fields?.to, request.fields?.type]),
		[['/v1/whatsapp/send', APPROVER, 'session']],
		'what the sandbox received once the model called the tool',
	);
	const fields = sent[0].fields ?? {};
	return { text: String(fields.text), links: answerLinksIn(context.n8nBaseUrl, fields) };
}

async function checkApproved(
	context: E2eContext,
	runner: CheckRunner,
	model: ModelDoubleAdmin,
	agent: ActiveAgent,
): Promise<void> {
	const to = '+919877710002';
	const parameters = { to, customer_name: 'Asha', order_id: '1234' };
	await runner.check(
		'approved: the approver gets one WhatsApp naming the tool and its parameters and no SMS goes out while the execution waits; the approval sends the SMS once as the model asked, its acknowledgement is the tool result',
		async () => {
			const started = await startAgent(context, model, agent, smsCall(parameters));
			const asked = await checkAsked(context, started);
			assert(
				asked.text.startsWith(expectedQuestion(parameters)),
				`the approver's text: ${asked.text}`,
			);
			assertEqual(asked.links.length, 2, 'links in the text (approve, decline)');
			await answer(asked.links[0], true);
			const finished = await ended(context, started.execution.id);
			assertEqual(finished.status, 'success', 'status after the approval');
			const sent = await sentSince(context, started.sentBefore);
			const sms = sent.filter((request) => request.path === '/v1/sms/send');
			assertEqual(
				sms.map((request) => request.fields),
				[
					{
						to,
						entity_id: '1201159876543210123',
						template_id: '1207161111111111111',
						content: JSON.stringify({ customer_name: 'Asha', order_id: '1234', eta: '24 Nov' }),
					},
				],
				'the SMS sent after the approval',
			);
			const ack = (sms[0].response as { body: unknown }).body;
			assertEqual(toolResults(await model.requests()), [JSON.stringify([ack])], 'tool result');
			assertEqual(agentAnswer(finished), `Tool results: ${JSON.stringify([ack])}`, 'answer');
		},
	);
}

const REJECTION =
	/^\[\{"output":"User rejected the tool call to Send SMS \(id: [^)]+\)\. STOP what you are doing and wait for the user to tell you how to proceed\. The tool is still available if needed\."\}\]$/;

async function checkDeclined(
	context: E2eContext,
	runner: CheckRunner,
	model: ModelDoubleAdmin,
	agent: ActiveAgent,
): Promise<void> {
	await runner.check(
		"declined: no SMS is ever sent, the model gets n8n's rejection as the tool result, the execution succeeds",
		async () => {
			const parameters = { to: '+919877710003', customer_name: 'Ravi', order_id: '2345' };
			const started = await startAgent(context, model, agent, smsCall(parameters));
			const asked = await checkAsked(context, started);
			await answer(asked.links[1], false);
			const finished = await ended(context, started.execution.id);
			assertEqual(finished.status, 'success', 'status after the decline');
			const sent = await sentSince(context, started.sentBefore);
			assertEqual(sent.length, 1, 'requests the sandbox received (the question only)');
			const results = toolResults(await model.requests());
			assert(results.length === 1 && REJECTION.test(results[0]), `tool results: ${results}`);
		},
	);
}

async function checkTimedOut(
	context: E2eContext,
	runner: CheckRunner,
	model: ModelDoubleAdmin,
): Promise<void> {
	await runner.check(
		"no answer before Limit Wait Time: no SMS is sent, the model gets n8n's rejection, the execution succeeds",
		async () => {
			const deadline = new Date(Date.now() + 15_000).toISOString();
			const limit = { values: { limitType: 'atSpecifiedTime', maxDateAndTime: deadline } };
			const agent = await createAgent(
				context,
				humanReviewWorkflow(
					'AI agent: SMS after human review within 15 s',
					SMS_TOOL,
					reviewParameters({ limitWaitTime: limit }),
				),
			);
			const parameters = { to: '+919877710004', customer_name: 'Meera', order_id: '3456' };
			const started = await startAgent(context, model, agent, smsCall(parameters));
			await checkAsked(context, started);
			const finished = await ended(context, started.execution.id);
			assertEqual(finished.status, 'success', 'status after the wait time');
			assert(Date.now() >= Date.parse(deadline), 'the execution ended before the deadline');
			const sent = await sentSince(context, started.sentBefore);
			assertEqual(sent.length, 1, 'requests the sandbox received (the question only)');
			const results = toolResults(await model.requests());
			assert(results.length === 1 && REJECTION.test(results[0]), `tool results: ${results}`);
		},
	);
}

async function checkLegacyOrder(
	context: E2eContext,
	runner: CheckRunner,
	model: ModelDoubleAdmin,
): Promise<void> {
	await runner.check(
		'under the legacy execution order v0 (n8n resumed the agent with a rejection before the approver answered, and an approval then ran nothing) Human review fails before anything is sent, saying why',
		async () => {
			const agent = await createAgent(
				context,
				withExecutionOrder(
					humanReviewWorkflow('AI agent, v0: SMS after human review', SMS_TOOL, reviewParameters()),
					'v0',
				),
			);
			const parameters = { to: '+919877710005', customer_name: 'Kiran', order_id: '5678' };
			const started = await startAgent(context, model, agent, smsCall(parameters));
			const finished = await ended(context, started.execution.id);
			assertEqual(
				await sentSince(context, started.sentBefore),
				[],
				'requests the sandbox received',
			);
			assertEqual(finished.status, 'error', 'execution status');
			const [reviewRun] = (finished.runData['Human review'] ?? []) as Array<{
				error?: { message?: string };
			}>;
			assertEqual(
				reviewRun?.error?.message,
				'Human review cannot run under the legacy execution order (v0): n8n resumes the agent before the approver answers, so the tool would never run. Set Workflow Settings > Execution Order to "v1 (recommended)".',
				"the review's error",
			);
		},
	);
}
