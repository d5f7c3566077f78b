import { NodeHelpers } from 'n8n-workflow';
import type { INode, INodeParameters, INodeTypeDescription } from 'n8n-workflow';

import { Messaging } from '../../../../nodes/Messaging/Messaging.node';
import { useSandbox } from '../../../helpers/sandboxForTests';
import { loadWorkflowFixture, runWorkflow, type WorkflowJson } from '../../../helpers/runWorkflow';

/**
 * The node as an AI Agent's tool. n8n registers a usable-as-tool node a second time under `<name>Tool`; in n8n's
 * engine the agent's call then runs that node with the model's arguments as its one input item, and whatever
 * the node throws reaches the model as `{ "error": message }` (a description never does).
 */
const TOOL_TYPE = 'n8n-nodes-messaging.messagingTool';

class MessagingTool extends Messaging {
	constructor() {
		super();
		this.description = {
			...this.description,
			name: 'messagingTool',
			displayName: 'Messaging Tool',
		};
	}
}

const sandbox = useSandbox();

function asTool(parameters: INodeParameters, onError?: INode['onError']): WorkflowJson {
	const base = loadWorkflowFixture('sms-send');
	return {
		...base,
		nodes: base.nodes.map((node) =>
			node.name === 'Messaging'
				? {
						...node,
						type: TOOL_TYPE,
						parameters: { ...node.parameters, ...parameters },
						...(onError ? { onError } : {}),
					}
				: node,
		),
	};
}

async function runAsTool(parameters: INodeParameters, onError?: INode['onError']) {
	return runWorkflow({
		workflow: asTool(parameters, onError),
		credentials: { baseUrl: sandbox().url, apiKey: sandbox().apiKey },
		items: [{ json: { phone: '98123 4560', name: 'Asha', orderId: '1', eta: 'Mon' } }],
		extraNodeTypes: { [TOOL_TYPE]: new MessagingTool() },
	});
}

const COUNTRY_CODE_FIX =
	'Write the number with its country code, e.g. +919812345678, or set Options > Default Country Code (e.g. 91) to complete national numbers.';

describe("pacing across an agent's calls", () => {
	test('Max Messages per Second spaces one call of the tool from the next, though each call is a run of its own', async () => {
		const started = Date.now();
		for (const orderId of ['1', '2']) {
			const { error } = await runWorkflow({
				workflow: asTool({ options: { maxPerSecond: 1 } }),
				// Two calls of one workflow: the limiter is the workflow's node's.
				workflowId: 'agent-pacing',
				credentials: { baseUrl: sandbox().url, apiKey: sandbox().apiKey },
				items: [{ json: { phone: '+919812345678', name: 'Asha', orderId, eta: 'Mon' } }],
				extraNodeTypes: { [TOOL_TYPE]: new MessagingTool() },
			});
			expect(error).toBeUndefined();
		}
		expect(sandbox().messages()).toHaveLength(2);
		// At 1 per second the second send may start a second after the first, however fast the runs are.
		expect(Date.now() - started).toBeGreaterThanOrEqual(950);
	});
});

describe('errors an agent reads', () => {
	test('a bad number says what is wrong and how to fix it, without an item number, and sends nothing', async () => {
		const { error } = await runAsTool({});
		expect(error?.message).toBe(`'To' "98123 4560" has no country code. ${COUNTRY_CODE_FIX}`);
		expect(sandbox().requests()).toHaveLength(0);
	});

	test('an unknown WhatsApp template carries the provider’s words and the fix', async () => {
		const { error } = await runAsTool({
			resource: 'whatsapp',
			operation: 'send',
			to: '+919812345678',
			messageType: 'template',
			templateName: 'order_updates',
		});
		expect(error?.message).toBe(
			"The Messaging API did not find what was asked for (404): No approved WhatsApp template named 'order_updates'. Check the template_name. Check the credential's Base URL (the API root, e.g. https://api.example.com, without /v1) and that the DLT Template ID or WhatsApp Template Name exists in your account.",
		);
		expect(sandbox().requests()).toHaveLength(1);
	});

	test('with On Error set to continue, the item the agent reads is that same one readable error', async () => {
		const { outputs } = await runAsTool({}, 'continueRegularOutput');
		expect(outputs.Messaging.map((item) => item.json)).toEqual([
			{ error: `'To' "98123 4560" has no country code. ${COUNTRY_CODE_FIX}` },
		]);
	});

	test('an unkind provider (HTML 503 on every try): the agent reads the workflow error and its advice as one message', async () => {
		sandbox().addFault({ action: { status: 503, bodyKind: 'html' } });
		const valid = { to: '+919812345678' };
		const inWorkflow = await runWorkflow({
			workflow: loadWorkflowFixture('sms-send'),
			credentials: { baseUrl: sandbox().url, apiKey: sandbox().apiKey },
			items: [{ json: { phone: '+919812345678', name: 'Asha', orderId: '1', eta: 'Mon' } }],
			parameters: { Messaging: valid },
		});
		const asTool = await runAsTool(valid);
		const { message, description } = inWorkflow.error!;
		expect(message).toMatch(/503/);
		expect(description).toBeTruthy();
		expect(asTool.error?.message).toBe(`${message.replace(/[\s.]+$/, '')}. ${description}`);
	});

	test('in a workflow the same error keeps its item number, with the fix as its description', async () => {
		const { error } = await runWorkflow({
			workflow: loadWorkflowFixture('sms-send'),
			credentials: { baseUrl: sandbox().url, apiKey: sandbox().apiKey },
			items: [{ json: { phone: '98123 4560', name: 'Asha', orderId: '1', eta: 'Mon' } }],
		});
		expect(error?.message).toBe(`Item 0: 'To' "98123 4560" has no country code`);
		expect(error?.description).toBe(COUNTRY_CODE_FIX);
	});
});

describe('what an agent is told about the tool', () => {
	const toolType = new MessagingTool();

	function toolDescriptionFor(parameters: INodeParameters, type = toolType): string {
		const node = {
			name: 'Send SMS',
			type: `n8n-nodes-messaging.${type.description.name}`,
			typeVersion: 1,
			parameters,
		} as INode;
		// As n8n builds the node's parameters at run time: defaults for every parameter shown.
		node.parameters = NodeHelpers.getNodeParameters(
			type.description.properties,
			parameters,
			true,
			false,
			node,
			type.description,
		)!;
		return NodeHelpers.getToolDescriptionForNode(node, type);
	}

	test.each([
		{
			kind: 'SMS',
			resource: 'sms',
			operation: 'send',
			opens: 'Sends one SMS',
			mentions: 'DLT template',
		},
		{
			kind: 'WhatsApp template',
			resource: 'whatsapp',
			operation: 'send',
			messageType: 'template',
			opens: 'Sends one WhatsApp template message',
			mentions: 'The template name is the approved name',
		},
		{
			kind: 'WhatsApp session',
			resource: 'whatsapp',
			operation: 'send',
			messageType: 'session',
			opens: 'Sends one free-text WhatsApp message',
			mentions: 'within 24 hours',
		},
	])(
		'$kind: what it does, E.164 numbers, the acknowledgement and errors',
		({ kind: _kind, opens, mentions, ...parameters }) => {
			const told = toolDescriptionFor(parameters);
			expect(told.startsWith(opens)).toBe(true);
			expect(told).toContain(mentions);
			expect(told).toContain('E.164');
			expect(told).toContain('status "queued" means the provider accepted the message');
			expect(told).toContain('correct that value and call again');
		},
	);

	test('a description the user wrote on the tool wins', () => {
		expect(toolDescriptionFor({ resource: 'sms', toolDescription: 'Texts the customer' })).toBe(
			'Texts the customer',
		);
	});

	test('the plain node has no tool description among its parameters', () => {
		const plain = new Messaging();
		const parameters = NodeHelpers.getNodeParameters(
			plain.description.properties,
			{ resource: 'sms' },
			true,
			false,
			{ typeVersion: 1 } as INode,
			plain.description as INodeTypeDescription,
		);
		expect(parameters).not.toHaveProperty('toolDescription');
	});
});
