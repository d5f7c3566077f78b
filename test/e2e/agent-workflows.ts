import { randomUUID } from 'node:crypto';

import { EXAMPLE_CREDENTIAL, MODEL_CREDENTIAL } from '../../scripts/lib/examples';

/**
 * Workflows that run the installed Messaging node as a tool of n8n's own AI Agent: a Webhook starts the agent
 * with the prompt it was posted and answers with the agent's final answer; the OpenAI Chat Model's credential
 * points at the model double, which plays the script a check set.
 */

export const MESSAGING_TOOL_TYPE = 'n8n-nodes-messaging.messagingTool';
const AGENT_NODE = 'AI Agent';

/** What the model is told about each field it fills: n8n passes the description on as the parameter's. */
export const FIELD_HINTS: Record<string, string> = {
	to: "The customer's phone number in E.164 format: + then country code and number, e.g. +919812345678",
	customer_name: "The customer's first name, e.g. Asha",
	order_id: 'The order number, e.g. 1234',
	template_name: 'The approved WhatsApp template name, e.g. order_update',
	delivery_date: 'The delivery date as the customer reads it, e.g. 24 Nov',
	tracking_code: 'The tracking code for the Track button, e.g. track-1234',
	text: 'The message to send, plain text',
};

/** The same key must carry the same description wherever it is used, or n8n refuses the tool. */
export function fromAi(key: keyof typeof FIELD_HINTS): string {
	return `$fromAI('${key}', \`${FIELD_HINTS[key]}\`, 'string')`;
}

export const SMS_TOOL = {
	name: 'Send SMS',
	parameters: {
		resource: 'sms',
		operation: 'send',
		to: `={{ ${fromAi('to')} }}`,
		entityId: '1201159876543210123',
		templateId: '1207161111111111111',
		variablesInputMode: 'fields',
		variables: {
			variable: [
				{ name: 'customer_name', value: `={{ ${fromAi('customer_name')} }}` },
				{ name: 'order_id', value: `={{ ${fromAi('order_id')} }}` },
				{ name: 'eta', value: '24 Nov' },
			],
		},
		options: {},
	},
};

export const WHATSAPP_TEMPLATE_TOOL = {
	name: 'Send WhatsApp template',
	parameters: {
		resource: 'whatsapp',
		operation: 'send',
		to: `={{ ${fromAi('to')} }}`,
		messageType: 'template',
		templateName: `={{ ${fromAi('template_name')} }}`,
		componentsInputMode: 'fields',
		components: {
			header: [{ index: 1, value: `={{ ${fromAi('order_id')} }}` }],
			body: [
				{ index: 1, value: `={{ ${fromAi('customer_name')} }}` },
				{ index: 2, value: `={{ ${fromAi('delivery_date')} }}` },
			],
			buttons: [{ index: 1, value: `={{ ${fromAi('tracking_code')} }}` }],
		},
		options: {},
	},
};

export const WHATSAPP_SESSION_TOOL = {
	name: 'Reply on WhatsApp',
	parameters: {
		resource: 'whatsapp',
		operation: 'send',
		to: `={{ ${fromAi('to')} }}`,
		messageType: 'session',
		text: `={{ ${fromAi('text')} }}`,
		options: {},
	},
};

/** SMS Send with an Idempotency Key from the order number, so the model asking twice for one order sends once. */
export const SMS_TOOL_WITH_KEY = {
	name: 'Send SMS',
	parameters: {
		...SMS_TOOL.parameters,
		options: { idempotencyKey: `={{ 'order-' + ${fromAi('order_id')} }}` },
	},
};

export interface ToolSpec {
	name: string;
	parameters: Record<string, unknown>;
}

export interface AgentWorkflow {
	json: Record<string, unknown>;
	/** The production webhook path the agent is started on. */
	webhookPath: string;
}

/** n8n names a tool after its node, spaces as underscores ("Send SMS" → "Send_SMS"). */
export function toolNameOf(nodeName: string): string {
	return nodeName.replace(/[^a-zA-Z0-9_-]/g, '_');
}

export function agentWorkflow(
	name: string,
	tools: ToolSpec[],
	{ responsesApi }: { responsesApi: boolean },
): AgentWorkflow {
	const webhookPath = `ai-agent-${randomUUID()}`;
	const toAgent = (type: string) => ({ [type]: [[{ node: AGENT_NODE, type, index: 0 }]] });
	const nodes = [
		{
			id: randomUUID(),
			name: 'Customer request',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: randomUUID(),
			parameters: { httpMethod: 'POST', path: webhookPath, responseMode: 'lastNode', options: {} },
		},
		{
			id: randomUUID(),
			name: AGENT_NODE,
			type: '@n8n/n8n-nodes-langchain.agent',
			typeVersion: 3.1,
			position: [260, 0],
			parameters: {
				promptType: 'define',
				text: '={{ $json.body.prompt }}',
				options: { systemMessage: 'You send order updates to customers.' },
			},
		},
		{
			id: randomUUID(),
			name: 'OpenAI Chat Model',
			type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
			typeVersion: 1.3,
			position: [200, 240],
			parameters: {
				model: { __rl: true, mode: 'id', value: 'model-double' },
				responsesApiEnabled: responsesApi,
				options: {},
			},
			credentials: { openAiApi: MODEL_CREDENTIAL },
		},
		...tools.map((tool, index) => ({
			id: randomUUID(),
			name: tool.name,
			type: MESSAGING_TOOL_TYPE,
			typeVersion: 1,
			position: [400 + index * 180, 240],
			parameters: tool.parameters,
			credentials: { messagingApi: EXAMPLE_CREDENTIAL },
		})),
	];
	const connections: Record<string, unknown> = {
		'Customer request': { main: [[{ node: AGENT_NODE, type: 'main', index: 0 }]] },
		'OpenAI Chat Model': toAgent('ai_languageModel'),
		...Object.fromEntries(tools.map((tool) => [tool.name, toAgent('ai_tool')])),
	};
	// The engine runs the agent's tool calls before resuming it only in v1 order, which the editor gives new workflows.
	return { json: { name, nodes, connections, settings: { executionOrder: 'v1' } }, webhookPath };
}

export const HUMAN_REVIEW_TYPE = 'n8n-nodes-messaging.messagingHitlTool';
export const HUMAN_REVIEW_NODE = 'Human review';

/** The agent's webhook answers as soon as it is called, not with the agent's answer: for runs that wait. */
export function answeringAtOnce(workflow: AgentWorkflow): AgentWorkflow {
	const [trigger, ...rest] = workflow.json.nodes as Array<{ parameters: Record<string, unknown> }>;
	const answering = {
		...trigger,
		parameters: { ...trigger.parameters, responseMode: 'onReceived' },
	};
	return { ...workflow, json: { ...workflow.json, nodes: [answering, ...rest] } };
}

/**
 * An agent whose tool is gated by the Messaging node as n8n's "Human review": the model's call to the tool sends
 * the review's Send and Wait, and only an approval runs the tool. The webhook answers at once, since the
 * execution waits for the person.
 */
export function humanReviewWorkflow(
	name: string,
	gatedTool: ToolSpec,
	reviewParameters: Record<string, unknown>,
): AgentWorkflow {
	const { json, webhookPath } = answeringAtOnce(
		agentWorkflow(name, [gatedTool], { responsesApi: true }),
	);
	const nodes = json.nodes as Array<Record<string, unknown>>;
	nodes.push({
		id: randomUUID(),
		name: HUMAN_REVIEW_NODE,
		type: HUMAN_REVIEW_TYPE,
		typeVersion: 1,
		position: [400, 480],
		webhookId: randomUUID(),
		parameters: reviewParameters,
		credentials: { messagingApi: EXAMPLE_CREDENTIAL },
	});
	const toReview = { ai_tool: [[{ node: HUMAN_REVIEW_NODE, type: 'ai_tool', index: 0 }]] };
	const toAgent = { ai_tool: [[{ node: AGENT_NODE, type: 'ai_tool', index: 0 }]] };
	const connections = {
		...(json.connections as Record<string, unknown>),
		[gatedTool.name]: toReview,
		[HUMAN_REVIEW_NODE]: toAgent,
	};
	return { json: { ...json, nodes, connections }, webhookPath };
}

/** The same agent at another AI Agent version; before 3 the agent refuses OpenAI Chat Model 1.3, so 1.2. */
export function withAgentVersion(workflow: AgentWorkflow, typeVersion: number): AgentWorkflow {
	const nodes = (workflow.json.nodes as Array<Record<string, unknown>>).map((node) => {
		if (node.name === AGENT_NODE) return { ...node, typeVersion };
		if (node.name !== 'OpenAI Chat Model' || typeVersion >= 3) return node;
		const { model } = node.parameters as Record<string, unknown>;
		return { ...node, typeVersion: 1.2, parameters: { model, options: {} } };
	});
	return { ...workflow, json: { ...workflow.json, nodes } };
}

/** The same agent under another execution order (v0: n8n's legacy order). */
export function withExecutionOrder(workflow: AgentWorkflow, executionOrder: string): AgentWorkflow {
	return { ...workflow, json: { ...workflow.json, settings: { executionOrder } } };
}
