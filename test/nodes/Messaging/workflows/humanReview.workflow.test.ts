import type { IDataObject, INodeParameters, INodeProperties } from 'n8n-workflow';

import { Messaging } from '../../../../nodes/Messaging/Messaging.node';
import { messagingApiCredentials, messagingNode, noOpNode } from '../../../helpers/nodeFixtures';
import { testNodeTypesWith } from '../../../helpers/nodeTypes';
import type { WorkflowJson } from '../../../helpers/runWorkflow';
import { formFields, useSandbox } from '../../../helpers/sandboxForTests';
import { linksInMessage, WaitingExecutions } from '../../../helpers/waitingExecutions';

/**
 * The node as n8n 2.40.7 generates it for an AI Agent's tools, through n8n-core's WorkflowExecute against the
 * sandbox. As Human review (`messagingHitlTool`) n8n replaces Message with its own, hides Response Type at
 * Approval, and runs the node with the model's call as its item (`tool`, `toolParameters`), which is where
 * `$tool` reads from. As a plain tool (`messagingTool`) Send and Wait waits only where n8n can wait for it.
 */
const HITL_TYPE = 'n8n-nodes-messaging.messagingHitlTool';
const TOOL_TYPE = 'n8n-nodes-messaging.messagingTool';
const REVIEW_MESSAGE =
	'=The agent wants to run this tool: {{ $tool.name }}\n\nInput:\n{{ $tool.parameters }}';

/** As n8n/dist/tool-generation/hitl-tools.js converts the description (filterHitlToolProperties). */
function hitlProperties(properties: INodeProperties[]): INodeProperties[] {
	const review: INodeProperties[] = [
		{ displayName: 'Message', name: 'message', type: 'string', default: REVIEW_MESSAGE },
	];
	for (const property of properties) {
		if (property.name === 'message') continue;
		if (property.name === 'resource' || property.name === 'operation') {
			const value = property.name === 'resource' ? 'whatsapp' : 'sendAndWait';
			review.push({
				displayName: property.displayName,
				name: property.name,
				type: 'hidden',
				default: value,
			});
		} else if (property.name === 'responseType') {
			review.push({
				displayName: 'Response Type',
				name: 'responseType',
				type: 'hidden',
				default: 'approval',
			});
		} else review.push(property);
	}
	return review;
}

class MessagingHitlTool extends Messaging {
	constructor() {
		super();
		const { properties } = this.description;
		this.description = {
			...this.description,
			name: 'messagingHitlTool',
			properties: hitlProperties(properties),
		};
	}
}

class MessagingTool extends Messaging {
	constructor() {
		super();
		this.description = { ...this.description, name: 'messagingTool' };
	}
}

const sandbox = useSandbox();
const toolCall = {
	tool: 'Send_SMS',
	toolParameters: { to: '+919877700001', customer_name: 'Asha', order_id: '1234' },
};

function workflow(
	type: string,
	parameters: INodeParameters,
	executionOrder: 'v0' | 'v1' = 'v1',
): WorkflowJson {
	const node = messagingNode(parameters, {
		name: 'Messaging',
		type,
		credentials: messagingApiCredentials(),
	});
	return {
		nodes: [noOpNode('Call'), node],
		connections: { Call: { main: [[{ node: 'Messaging', type: 'main', index: 0 }]] } },
		settings: { executionOrder },
	};
}

const nodeTypes = testNodeTypesWith({
	[HITL_TYPE]: new MessagingHitlTool(),
	[TOOL_TYPE]: new MessagingTool(),
});

function executions(workflowJson: WorkflowJson) {
	return new WaitingExecutions(
		workflowJson,
		() => ({ baseUrl: sandbox().url, apiKey: sandbox().apiKey }),
		nodeTypes,
	);
}

/** One call: the run until it waits or ends, its error, and the node's output. */
async function run(workflowJson: WorkflowJson, item: IDataObject = toolCall) {
	const runtime = executions(workflowJson);
	const { id, run: result } = await runtime.start([{ json: item }]);
	const output = result.data.resultData.runData.Messaging?.[0]?.data?.main[0]?.map((i) => i.json);
	return { runtime, id, run: result, error: result.data.resultData.error, output: output ?? [] };
}

function sentTexts(): Array<Record<string, unknown>> {
	return sandbox()
		.requests()
		.map((request) => formFields(request.rawBody));
}

const review = {
	to: '+919812345678',
	messageType: 'session',
	approvalOptions: { values: { approvalType: 'double' } },
	options: {},
};

describe('as Human review', () => {
	test("n8n's own message names the tool and writes its parameters as JSON, then the approve and decline links; the execution waits", async () => {
		const { run: result, error } = await run(workflow(HITL_TYPE, review));
		expect(error).toBeUndefined();
		expect(result.status).toBe('waiting');
		const [question] = sentTexts();
		expect(question).toMatchObject({ to: '+919812345678', type: 'session' });
		expect(String(question.text)).toMatch(
			new RegExp(
				`^The agent wants to run this tool: Send_SMS\\n\\nInput:\\n${JSON.stringify(toolCall.toolParameters, null, 2).replace(/[{}+]/g, '\\$&')}\\n\\n✓ Approve: http\\S+\\n✗ Decline: http\\S+$`,
			),
		);
	});

	test("the approver's press resumes it with `approved`, which the agent reads: true for Approve, false for Decline", async () => {
		for (const [position, approved] of [
			[0, true],
			[1, false],
		] as const) {
			const { runtime, error } = await run(workflow(HITL_TYPE, review));
			expect(error).toBeUndefined();
			const links = linksInMessage(sentTexts().at(-1) as Record<string, string>);
			const pressed = await runtime.open(links[position], {
				method: 'POST',
				body: { approved: String(approved) },
			});
			const [answer] = pressed.run!.data.resultData.runData.Messaging.at(-1)!.data!.main[0]!;
			expect(answer.json).toMatchObject({ answered: true, data: { approved } });
		}
	});

	test('in the legacy execution order v0 it fails before anything is sent (n8n would resume the agent with a rejection before the approver answers)', async () => {
		const { error } = await run(workflow(HITL_TYPE, review, 'v0'));
		expect(error?.message).toBe(
			'Human review cannot run under the legacy execution order (v0): n8n resumes the agent before the approver answers, so the tool would never run. Set Workflow Settings > Execution Order to "v1 (recommended)".',
		);
		expect(sandbox().requests()).toHaveLength(0);
	});

	test('a message of its own keeps its expressions, $tool.parameters.<key> included', async () => {
		const message = '=May the agent text {{ $tool.parameters.customer_name }} ({{ $tool.name }})?';
		const { error } = await run(workflow(HITL_TYPE, { ...review, message }));
		expect(error).toBeUndefined();
		expect(String(sentTexts()[0].text)).toMatch(
			/^May the agent text Asha \(Send_SMS\)\?\n\n✓ Approve/,
		);
	});

	test('a Free Text saved in the workflow still asks for an approval: the agent reads only `approved`', async () => {
		const { error } = await run(workflow(HITL_TYPE, { ...review, responseType: 'freeText' }));
		expect(error).toBeUndefined();
		// n8n drops Approval Options with a Free Text saved, so the approver can approve (or let the wait run out).
		const text = String(sentTexts()[0].text);
		expect(text).toMatch(/\n\n✓ Approve: http\S+$/);
		expect(text).not.toContain('Respond');
	});

	test("with a template, the links go on its buttons and the answer page asks n8n's message", async () => {
		const { output, error } = await run(
			workflow(HITL_TYPE, {
				...review,
				messageType: 'template',
				templateName: 'approval_request',
				components: {
					body: [
						{ index: 1, value: '={{ $tool.name }}' },
						{ index: 2, value: '={{ $tool.parameters.order_id }}' },
					],
				},
			}),
		);
		expect(error).toBeUndefined();
		const [question] = sentTexts();
		expect(question).toMatchObject({ type: 'template', template_name: 'approval_request' });
		expect(JSON.parse(String(question.components)).body).toEqual({ '1': 'Send_SMS', '2': '1234' });
		const waiting = output[0] as { answerPage: { question: string } };
		expect(waiting.answerPage.question).toBe(
			`The agent wants to run this tool: Send_SMS\n\nInput:\n${JSON.stringify(toolCall.toolParameters, null, 2)}`,
		);
	});
});

describe('a new Human review node (Message Type at its default, Template)', () => {
	test("is refused by n8n before it runs, for its empty Template Name (n8n's Message goes out only as a Session text)", async () => {
		await expect(run(workflow(HITL_TYPE, { to: '+919812345678' }))).rejects.toThrow(
			'Parameter "Template Name" is required.',
		);
		expect(sandbox().requests()).toHaveLength(0);
	});
});

describe('Send and Wait as a plain agent tool', () => {
	const ask = { resource: 'whatsapp', operation: 'sendAndWait', ...review, message: 'Ship it?' };

	test('in execution order v1 (AI Agent 3 hands the call to the engine) it sends and waits', async () => {
		const { run: result, error } = await run(workflow(TOOL_TYPE, ask), { text: 'Ship it?' });
		expect(error).toBeUndefined();
		expect(result.status).toBe('waiting');
		expect(sentTexts()).toHaveLength(1);
	});

	test('in the legacy order v0 it fails before anything is sent, saying why and what to do instead', async () => {
		const { error } = await run(workflow(TOOL_TYPE, ask, 'v0'), { text: 'Ship it?' });
		expect(error?.message).toBe(
			'Send and Wait cannot run as an agent tool under the legacy execution order (v0): n8n resumes the agent before the person answers. Set Workflow Settings > Execution Order to "v1 (recommended)", connect the Messaging node to the tool as Human review instead (on the tool\'s connector: Human review > Messaging), or use Send.',
		);
		expect(sandbox().requests()).toHaveLength(0);
	});

	test('Send is not concerned: it sends in v0 as before', async () => {
		const send = {
			resource: 'whatsapp',
			operation: 'send',
			to: '+919812345678',
			messageType: 'session',
			text: 'Hi',
		};
		const { error } = await run(workflow(TOOL_TYPE, send, 'v0'), {});
		expect(error).toBeUndefined();
		expect(sentTexts()).toHaveLength(1);
	});
});
