import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { INode } from 'n8n-workflow';

import { MESSAGING_NODE_TYPE, noOpNode } from '../../../helpers/nodeFixtures';
import { formFields, useSandbox } from '../../../helpers/sandboxForTests';
import { runWorkflow } from '../../../helpers/runWorkflow';
import { linksInMessage, WaitingExecutions } from '../../../helpers/waitingExecutions';

const sandbox = useSandbox();

/** What each example's trigger would hand its Messaging nodes. */
const sampleInputs: Record<string, Record<string, unknown>> = {
	'sms-order-shipped-dlt.json': {
		body: { customer: { phone: '+91 98123 45678', name: 'Asha' }, order_id: '1234', eta: '24 Nov' },
	},
	'whatsapp-inbound-reply.json': {
		event_id: 'evt_sample',
		type: 'message.inbound',
		message_id: 'msg_sample_inbound',
		channel: 'whatsapp',
		from: '+919812345678',
		to: '+918000012345',
		timestamp: '2026-11-23T10:00:00.000Z',
		message_type: 'text',
		text: 'Where is my order?',
		window_expires_at: '2026-11-24T10:00:00.000Z',
	},
	'whatsapp-lead-followup.json': {
		body: { phone: '+919812345678', first_name: 'Ravi', interest: '2BHK', lead_id: 'L-77' },
	},
};

function messagingNodesOf(file: string): INode[] {
	const workflow = JSON.parse(
		readFileSync(path.join(__dirname, '../../../../examples', file), 'utf8'),
	) as {
		nodes: INode[];
	};
	return workflow.nodes.filter((candidate) => candidate.type === MESSAGING_NODE_TYPE);
}

const messagingNodes = Object.keys(sampleInputs).flatMap((file) =>
	messagingNodesOf(file).map((node) => [file, node.name, node] as const),
);

describe('the shipped examples drive the node with the contract parameter names', () => {
	it('finds every Messaging node of the examples, both replies of the inbound one included', () => {
		expect(messagingNodes.map(([file, name]) => `${file}: ${name}`)).toEqual(
			expect.arrayContaining([
				'whatsapp-inbound-reply.json: Reply in the open session',
				'whatsapp-inbound-reply.json: Reply with a template',
			]),
		);
	});

	test.each(messagingNodes)(
		'%s, "%s", sends and outputs an acknowledgement',
		async (file, _name, messaging) => {
			const entry: INode = noOpNode('Input', { id: 'entry' });
			const { outputs, error } = await runWorkflow({
				workflow: {
					nodes: [entry, messaging],
					connections: { Input: { main: [[{ node: messaging.name, type: 'main', index: 0 }]] } },
				},
				credentials: { baseUrl: sandbox().url, apiKey: sandbox().apiKey },
				items: [{ json: sampleInputs[file] }],
			});

			expect(error).toBeUndefined();
			const [request] = sandbox().requests();
			expect(request.response.status).toBe(200);
			expect(formFields(request.rawBody).to).toBe('+919812345678');
			expect(outputs[messaging.name]).toEqual([
				{ json: request.response.body, pairedItem: { item: 0 } },
			]);
		},
	);
});

describe('the approval example asks with Send and Wait and continues with the answer', () => {
	test('whatsapp-approval.json sends its template with both links as URL buttons; the approve link opens a page with the order, its Approve button resumes it', async () => {
		const [messaging] = messagingNodesOf('whatsapp-approval.json');
		const order = {
			body: {
				order_id: 'ORD-2041',
				amount: 82000,
				customer: 'Lakeview Interiors',
				manager_phone: '+91 98123 45678',
			},
		};
		const runtime = new WaitingExecutions(
			{
				nodes: [noOpNode('Input', { id: 'entry' }), messaging],
				connections: { Input: { main: [[{ node: messaging.name, type: 'main', index: 0 }]] } },
			},
			() => ({ baseUrl: sandbox().url, apiKey: sandbox().apiKey }),
		);
		const { run } = await runtime.start([{ json: order }]);
		expect(run.status).toBe('waiting');
		expect(run.waitTill!.getTime() - Date.now()).toBeGreaterThan(24 * 3_600_000 - 60_000);
		const [request] = sandbox().requests();
		expect(request.response.status).toBe(200);
		const fields = formFields(request.rawBody);
		expect(fields).toMatchObject({
			to: '+919812345678',
			type: 'template',
			template_name: 'approval_request',
		});
		expect(JSON.parse(fields.components).body).toEqual({
			'1': 'ORD-2041 for Lakeview Interiors',
			'2': '₹82000',
		});
		const [approve] = linksInMessage(fields);
		const page = await runtime.open(approve);
		expect(page.run).toBeUndefined();
		expect(page.body).toContain(
			'<h1>Order ORD-2041</h1><p>Lakeview Interiors ordered for ₹82000, above the approval limit. Approve it?</p>',
		);
		const { run: resumed } = await runtime.open(approve, {
			method: 'POST',
			body: { approved: 'true' },
		});
		const output = resumed!.data.resultData.runData[messaging.name][0].data!.main[0]!;
		expect(output.map((item) => item.json)).toEqual([
			expect.objectContaining({
				answered: true,
				data: { approved: true },
				respondedBy: '+919812345678',
			}),
		]);
	});
});
