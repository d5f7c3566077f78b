import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { INode } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../../sandbox';
import { noOpNode } from '../../helpers/nodeFixtures';
import { formFields } from '../../helpers/sandboxForTests';
import { runWorkflow } from '../../helpers/runWorkflow';
import { CURRENT_TRIGGER_VERSION } from './support/n8nRuntime';
import { startTriggerHarness, type TriggerHarness } from './support/triggerHarness';

const CUSTOMER = '+919844444444';

function exampleNode(name: string): INode {
	const file = path.join(__dirname, '../../../examples/whatsapp-inbound-reply.json');
	const workflow = JSON.parse(readFileSync(file, 'utf8')) as { nodes: INode[] };
	const node = workflow.nodes.find((candidate) => candidate.name === name);
	if (!node) throw new Error(`the inbound example has no node "${name}"`);
	return node;
}

describe('Receive, then reply: an inbound message through the trigger, answered in its session window', () => {
	let sandbox: Sandbox;
	let trigger: TriggerHarness;

	beforeEach(async () => {
		sandbox = await startSandbox({ port: 0, lifecycle: null, webhooks: { baseDelayMs: 20 } });
		const triggerParameters = exampleNode('WhatsApp message received').parameters;
		trigger = await startTriggerHarness({
			signingSecret: sandbox.signingSecret,
			parameters: triggerParameters,
			typeVersion: CURRENT_TRIGGER_VERSION,
		});
		sandbox.setWebhookUrl(trigger.url);
	});
	afterEach(async () => {
		await sandbox.close();
		await trigger.close();
	});

	it("answers a customer who had no open window with the example's session reply, to their own number", async () => {
		const rejected = await fetch(`${sandbox.url}/v1/whatsapp/send`, {
			method: 'POST',
			headers: { authorization: `Bearer ${sandbox.apiKey}` },
			body: new URLSearchParams({ to: CUSTOMER, type: 'session', text: 'Too early' }),
		});
		expect(rejected.status).toBe(422);
		sandbox.clearRequests();

		sandbox.simulateInbound({ from: CUSTOMER, text: 'Where is my order?' });
		const deadline = Date.now() + 10_000;
		while (trigger.runs.length === 0 && Date.now() < deadline)
			await new Promise((resolve) => setTimeout(resolve, 20));
		const [items] = trigger.runs;
		expect(items).toEqual([
			{
				json: expect.objectContaining({
					from: CUSTOMER,
					text: 'Where is my order?',
					window_expires_at: expect.any(String),
				}),
			},
		]);

		const reply = exampleNode('Reply in the open session');
		const { outputs, error } = await runWorkflow({
			workflow: {
				nodes: [noOpNode('Inbound message', { id: 'entry' }), reply],
				connections: {
					'Inbound message': { main: [[{ node: reply.name, type: 'main', index: 0 }]] },
				},
			},
			credentials: { baseUrl: sandbox.url, apiKey: sandbox.apiKey },
			items: items.map((item) => ({ json: item.json })),
		});

		expect(error).toBeUndefined();
		const [request] = sandbox.requests();
		expect(request.response.status).toBe(200);
		expect(formFields(request.rawBody)).toEqual({
			to: CUSTOMER,
			type: 'session',
			text: 'Thanks for your message! Our team has it and will answer here shortly.',
		});
		expect(outputs[reply.name]).toEqual([{ json: request.response.body, pairedItem: { item: 0 } }]);
	});
});
