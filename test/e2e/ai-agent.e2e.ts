import type { ModelDoubleAdmin } from '../../scripts/model-double/admin';
import type { RecordedModelRequest } from '../../scripts/model-double/server';
import type { ScriptedCall } from '../../scripts/model-double/conversation';
import type { RecordedRequest } from '../../scripts/lib/sandbox-admin';
import {
	listExecutions,
	readExecution,
	waitFor,
	type StoredExecution,
} from '../../scripts/n8n/executions';
import { toolDescriptionFields } from '../../nodes/Messaging/actions/common/toolDescriptions';
import {
	agentWorkflow,
	FIELD_HINTS,
	SMS_TOOL_WITH_KEY,
	SMS_TOOL,
	toolNameOf,
	WHATSAPP_SESSION_TOOL,
	WHATSAPP_TEMPLATE_TOOL,
	type AgentWorkflow,
} from './agent-workflows';
import { checkAgentInEditor, checkAiAssistantExample } from './ai-assistant.e2e';
import type { E2eContext } from './context';
import { assert, assertEqual, type CheckRunner } from './harness';
import { waitUntilRegistered } from './trigger-burst.e2e';

const RUN_TIMEOUT_MS = 60_000;
const [SMS_DESCRIPTION, TEMPLATE_DESCRIPTION, SESSION_DESCRIPTION] = toolDescriptionFields.map(
	(field) => String(field.default),
);

export interface AgentRun {
	answer: string;
	execution: StoredExecution;
	modelRequests: RecordedModelRequest[];
}

interface Agents {
	sms: AgentWorkflow & { id: string };
	smsWithKey: AgentWorkflow & { id: string };
	whatsapp: AgentWorkflow & { id: string };
}

/** What every agent check runs with: n8n, its check runner, the scripted model and the active agent workflows. */
interface AgentRig {
	context: E2eContext;
	runner: CheckRunner;
	model: ModelDoubleAdmin;
	agents: Agents;
}

/** Posts a prompt to the agent workflow's webhook and waits for its execution to be stored. */
async function runAgent(
	context: E2eContext,
	model: ModelDoubleAdmin,
	agent: AgentWorkflow & { id: string },
	prompt: string,
	calls: ScriptedCall[],
): Promise<AgentRun> {
	await model.clearRequests();
	await model.play({ calls });
	const before = new Set((await listExecutions(context.rest, agent.id)).map((run) => run.id));
	const response = await fetch(`${context.n8nBaseUrl}/webhook/${agent.webhookPath}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ prompt }),
	});
	const text = await response.text();
	const execution = await waitFor('the agent execution to be stored', RUN_TIMEOUT_MS, async () => {
		const done = (await listExecutions(context.rest, agent.id)).find(
			(run) => !before.has(run.id) && run.status !== 'running' && run.status !== 'new',
		);
		return done ? await readExecution(context.rest, done.id) : undefined;
	});
	const answer = response.ok ? String((JSON.parse(text) as { output?: unknown }).output) : text;
	return { answer, execution, modelRequests: await model.requests() };
}

/** What n8n sent the model as the tools' results, in order, over all requests of the run. */
function toolResults(run: AgentRun): string[] {
	const last = run.modelRequests.at(-1);
	return last?.conversation?.toolResults.map((result) => result.output) ?? [];
}

function sendsTo(requests: RecordedRequest[], to: string): RecordedRequest[] {
	return requests.filter((request) => request.fields?.to === to);
}

function statusOf(request: RecordedRequest): number | undefined {
	return (request.response as { status?: number } | undefined)?.status;
}

function acknowledgementOf(request: RecordedRequest): Record<string, unknown> {
	return (request.response as { body: Record<string, unknown> }).body;
}

/** The parameter schema n8n builds from the tool's `$fromAI()` fields. */
function expectedSchema(keys: string[]) {
	return {
		type: 'object',
		properties: Object.fromEntries(
			keys.map((key) => [key, { type: 'string', description: FIELD_HINTS[key] }]),
		),
		required: keys,
		additionalProperties: false,
		$schema: 'http://json-schema.org/draft-07/schema#',
	};
}

export async function checkAiAgent(
	context: E2eContext,
	runner: CheckRunner,
	model: ModelDoubleAdmin,
): Promise<void> {
	const create = async (workflow: AgentWorkflow) => ({
		...workflow,
		id: await context.rest.createActiveWorkflow(workflow.json),
	});
	let agents: Agents | undefined;
	await runner.check('agent workflows with the Messaging node as a tool activate', async () => {
		agents = {
			sms: await create(agentWorkflow('AI agent: SMS tool', [SMS_TOOL], { responsesApi: true })),
			smsWithKey: await create(
				agentWorkflow('AI agent: SMS tool with an idempotency key', [SMS_TOOL_WITH_KEY], {
					responsesApi: true,
				}),
			),
			whatsapp: await create(
				agentWorkflow('AI agent: WhatsApp tools', [WHATSAPP_TEMPLATE_TOOL, WHATSAPP_SESSION_TOOL], {
					responsesApi: false,
				}),
			),
		};
		// n8n answers 404 for a few seconds after activation: a prompt posted then starts nothing.
		for (const [source, agent] of Object.entries(agents))
			await waitUntilRegistered({
				url: `${context.n8nBaseUrl}/webhook/${agent.webhookPath}`,
				source: `${source} agent`,
			});
	});
	if (!agents) return checkAiAssistantExample(context, runner, model);
	const rig = { context, runner, model, agents };
	try {
		await checkSmsTool(rig);
		await checkWhatsappTools(rig);
		await checkToolErrors(rig);
		await checkIdempotencyKey(rig);
		await checkProviderRateLimit(rig);
	} finally {
		await model.echo();
	}
	await checkAiAssistantExample(context, runner, model);
	await checkAgentInEditor(context, runner, agents.sms.id);
}

async function checkSmsTool({ context, runner, model, agents }: AgentRig): Promise<void> {
	await runner.check(
		'SMS Send as a tool (Responses API): the sandbox gets exactly the message the model asked for, its acknowledgement is the tool result',
		async () => {
			const to = '+919877700001';
			const run = await runAgent(context, model, agents.sms, 'Tell Asha her order 1234 shipped', [
				{ tool: 'Send_SMS', arguments: { to, customer_name: 'Asha', order_id: '1234' } },
			]);
			assertEqual(run.execution.status, 'success', 'execution status');
			const [first] = run.modelRequests;
			assertEqual(first.path, '/v1/responses', 'the API n8n called');
			assertEqual(
				first.conversation?.tools,
				[
					{
						name: toolNameOf(SMS_TOOL.name),
						description: SMS_DESCRIPTION,
						parameters: expectedSchema(['to', 'customer_name', 'order_id']),
					},
				],
				'the tool as n8n offered it to the model',
			);
			const sent = sendsTo(await context.sandbox.requests(), to);
			assertEqual(sent.length, 1, `requests the sandbox got for ${to}`);
			assertEqual(
				sent[0].fields,
				{
					to,
					entity_id: '1201159876543210123',
					template_id: '1207161111111111111',
					content: JSON.stringify({ customer_name: 'Asha', order_id: '1234', eta: '24 Nov' }),
				},
				'the SMS the sandbox received',
			);
			const ack = acknowledgementOf(sent[0]);
			assertEqual(toolResults(run), [JSON.stringify([ack])], 'the tool result the model got');
			assertEqual(run.answer, `Tool results: ${JSON.stringify([ack])}`, "the agent's answer");
		},
	);
}

/** Tools by name and `required` sorted: n8n's order of both is not part of what the model is told. */
function offeredTools(request: RecordedModelRequest | undefined) {
	const tools = [...(request?.conversation?.tools ?? [])].sort((a, b) =>
		a.name.localeCompare(b.name),
	);
	return tools.map((tool) => ({
		...tool,
		parameters: {
			...tool.parameters,
			required: [...((tool.parameters.required as string[]) ?? [])].sort(),
		},
	}));
}

function sortedSchema(keys: string[]) {
	return { ...expectedSchema(keys), required: [...keys].sort() };
}

async function checkWhatsappTools({ context, runner, model, agents }: AgentRig): Promise<void> {
	const templateKeys = [
		'to',
		'template_name',
		'order_id',
		'customer_name',
		'delivery_date',
		'tracking_code',
	];
	await runner.check(
		'WhatsApp template with variables as a tool (Chat Completions): the template and its variables as the model gave them',
		async () => {
			const to = '+919877700002';
			const run = await runAgent(
				context,
				model,
				agents.whatsapp,
				'Tell Asha order 1234 arrives 24 Nov',
				[
					{
						tool: toolNameOf(WHATSAPP_TEMPLATE_TOOL.name),
						arguments: {
							to,
							template_name: 'order_update',
							order_id: '1234',
							customer_name: 'Asha',
							delivery_date: '24 Nov',
							tracking_code: 'track-1234',
						},
					},
				],
			);
			assertEqual(run.execution.status, 'success', 'execution status');
			assertEqual(run.modelRequests[0].path, '/v1/chat/completions', 'the API n8n called');
			assertEqual(
				offeredTools(run.modelRequests[0]),
				[
					{
						name: toolNameOf(WHATSAPP_SESSION_TOOL.name),
						description: SESSION_DESCRIPTION,
						parameters: sortedSchema(['to', 'text']),
					},
					{
						name: toolNameOf(WHATSAPP_TEMPLATE_TOOL.name),
						description: TEMPLATE_DESCRIPTION,
						parameters: sortedSchema(templateKeys),
					},
				],
				'the tools as n8n offered them to the model',
			);
			const sent = sendsTo(await context.sandbox.requests(), to);
			assertEqual(sent.length, 1, `requests the sandbox got for ${to}`);
			const { components, ...fields } = sent[0].fields ?? {};
			assertEqual(fields, { to, type: 'template', template_name: 'order_update' }, 'the template');
			assertEqual(
				JSON.parse(String(components)),
				{ header: { 1: '1234' }, body: { 1: 'Asha', 2: '24 Nov' }, buttons: { 1: 'track-1234' } },
				'its variables',
			);
			assertEqual(toolResults(run), [JSON.stringify([acknowledgementOf(sent[0])])], 'tool result');
		},
	);
	await runner.check(
		'WhatsApp session text as a tool: the text the model wrote, inside the window the customer opened',
		async () => {
			const to = '+919877700003';
			await context.sandbox.simulateInbound({ from: to, text: 'Is my order on its way?' });
			const text = 'Yes: order 1234 left the warehouse today.';
			const run = await runAgent(context, model, agents.whatsapp, 'Answer the customer', [
				{ tool: toolNameOf(WHATSAPP_SESSION_TOOL.name), arguments: { to, text } },
			]);
			const sent = sendsTo(await context.sandbox.requests(), to);
			assertEqual(sent.length, 1, `requests the sandbox got for ${to}`);
			assertEqual(sent[0].fields, { to, type: 'session', text }, 'the session message');
			assertEqual(toolResults(run), [JSON.stringify([acknowledgementOf(sent[0])])], 'tool result');
		},
	);
}

async function checkToolErrors({ context, runner, model, agents }: AgentRig): Promise<void> {
	await runner.check(
		'a number without a country code comes back to the model as what is wrong and how to fix it; its corrected call sends, the execution succeeds',
		async () => {
			const to = '+919877700004';
			const args = { customer_name: 'Ravi', order_id: '2345' };
			const run = await runAgent(context, model, agents.sms, 'Tell Ravi order 2345 shipped', [
				{ tool: 'Send_SMS', arguments: { to: '98123 4560', ...args } },
				{ tool: 'Send_SMS', arguments: { to, ...args } },
			]);
			assertEqual(run.execution.status, 'success', 'execution status');
			const requests = await context.sandbox.requests();
			assertEqual(sendsTo(requests, '98123 4560').length, 0, 'requests for the bad number');
			const sent = sendsTo(requests, to);
			assertEqual(sent.length, 1, `requests for the corrected number ${to}`);
			assertEqual(
				toolResults(run),
				[
					JSON.stringify([
						{
							error: `'To' "98123 4560" has no country code. Write the number with its country code, e.g. +919812345678, or set Options > Default Country Code (e.g. 91) to complete national numbers.`,
						},
					]),
					JSON.stringify([acknowledgementOf(sent[0])]),
				],
				'what the model read after each call',
			);
		},
	);
	await runner.check(
		'an unknown template comes back to the model as a readable tool error; called again with the right name it sends',
		async () => {
			const to = '+919877700005';
			const args = {
				to,
				order_id: '3456',
				customer_name: 'Meera',
				delivery_date: '25 Nov',
				tracking_code: 'track-3456',
			};
			const tool = toolNameOf(WHATSAPP_TEMPLATE_TOOL.name);
			const run = await runAgent(context, model, agents.whatsapp, 'Tell Meera about 3456', [
				{ tool, arguments: { ...args, template_name: 'order_updates' } },
				{ tool, arguments: { ...args, template_name: 'order_update' } },
			]);
			assertEqual(run.execution.status, 'success', 'execution status');
			const sent = sendsTo(await context.sandbox.requests(), to);
			assertEqual(
				sent.map((request) => [request.fields?.template_name, statusOf(request)]),
				[
					['order_updates', 404],
					['order_update', 200],
				],
				'what the sandbox got and answered',
			);
			assertEqual(
				toolResults(run),
				[
					JSON.stringify([
						{
							error:
								"The Messaging API did not find what was asked for (404): No approved WhatsApp template named 'order_updates'. Check the template_name. Check the credential's Base URL (the API root, e.g. https://api.example.com, without /v1) and that the DLT Template ID or WhatsApp Template Name exists in your account.",
						},
					]),
					JSON.stringify([acknowledgementOf(sent[1])]),
				],
				'what the model read after each call',
			);
		},
	);
}

async function checkIdempotencyKey({ context, runner, model, agents }: AgentRig): Promise<void> {
	await runner.check(
		'the Idempotency Key holds across tool calls: the model sending one order twice sends one message, both results name it',
		async () => {
			const to = '+919877700006';
			const call = {
				tool: 'Send_SMS',
				arguments: { to, customer_name: 'Kiran', order_id: '5678' },
			};
			const run = await runAgent(
				context,
				model,
				agents.smsWithKey,
				'Tell Kiran order 5678 shipped',
				[call, call],
			);
			const sent = sendsTo(await context.sandbox.requests(), to);
			assertEqual(
				sent.map((request) => request.headers['idempotency-key']),
				['order-5678', 'order-5678'],
				'Idempotency-Key of each request',
			);
			const acks = sent.map(acknowledgementOf);
			assertEqual(acks[1].message_id, acks[0].message_id, 'message id of the repeated call');
			const messages = (await context.sandbox.messages()).filter((message) => message.to === to);
			assertEqual(messages.length, 1, `messages the sandbox accepted for ${to}`);
			assertEqual(
				toolResults(run),
				acks.map((ack) => JSON.stringify([ack])),
				'what the model read after each call',
			);
		},
	);
}

async function checkProviderRateLimit({ context, runner, model, agents }: AgentRig): Promise<void> {
	await runner.check(
		"the provider's rate limit holds across tool calls: three calls in a row at 1/s are sent about 1 s apart, in order, and all reach the model as acknowledgements",
		async () => {
			const numbers = ['+919877700007', '+919877700008', '+919877700009'];
			await context.sandbox.configure({ rateLimit: { perSecond: 1, burst: 1 } });
			let run: AgentRun;
			try {
				run = await runAgent(
					context,
					model,
					agents.sms,
					'Tell three customers their orders shipped',
					numbers.map((to, index) => ({
						tool: 'Send_SMS',
						arguments: { to, customer_name: `Customer ${index + 1}`, order_id: `90${index}` },
					})),
				);
			} finally {
				await context.sandbox.configure({ rateLimit: null });
			}
			assertEqual(run.execution.status, 'success', 'execution status');
			const requests = (await context.sandbox.requests()).filter((request) =>
				numbers.includes(String(request.fields?.to)),
			);
			const accepted = requests.filter((request) => statusOf(request) === 200);
			const throttled = requests.filter((request) => statusOf(request) === 429);
			assertEqual(
				accepted.map((request) => request.fields?.to),
				numbers,
				'numbers the sandbox accepted, in call order',
			);
			// The tool node keeps its limiter across calls, so the budget the first answer told paces the next calls;
			// a provider without budget headers paces them by its 429s. Either way the sends stay a second apart.
			const gaps = accepted
				.slice(1)
				.map((request, i) => Number(request.receivedAt) - Number(accepted[i].receivedAt));
			console.log(
				`      accepted ${accepted.length} at gaps of ${gaps.join(', ')} ms after ${throttled.length} answers of 429`,
			);
			assert(
				gaps.every((gap) => gap >= 900),
				`accepted sends must be about 1 s apart, were ${gaps.join(', ')} ms`,
			);
			assertEqual(
				toolResults(run),
				accepted.map((request) => JSON.stringify([acknowledgementOf(request)])),
				'what the model read after each call',
			);
		},
	);
}
