import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { INode } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../../sandbox';
import { startTriggerHarness, type TriggerHarness } from './support/triggerHarness';

const MESSAGES = 40;

function exampleTrigger(): INode {
	const file = path.join(__dirname, '../../../examples/whatsapp-delivery-report.json');
	const workflow = JSON.parse(readFileSync(file, 'utf8')) as { nodes: INode[] };
	return workflow.nodes.find((node) => node.name === 'Campaign status events')!;
}

describe("The delivery report example's trigger, fed by the sandbox's status events of a campaign", () => {
	let sandbox: Sandbox;
	let trigger: TriggerHarness;

	beforeEach(async () => {
		sandbox = await startSandbox({ port: 0, lifecycle: { stepDelayMs: 50 } });
		const node = exampleTrigger();
		trigger = await startTriggerHarness({
			signingSecret: sandbox.signingSecret,
			parameters: node.parameters,
			typeVersion: node.typeVersion,
		});
		sandbox.setWebhookUrl(trigger.url);
	});
	afterEach(async () => {
		await sandbox.close();
		await trigger.close();
	});

	it('runs every status event of the campaign once, as items of a few executions', async () => {
		const sends = Array.from({ length: MESSAGES }, (_, index) =>
			fetch(`${sandbox.url}/v1/whatsapp/send`, {
				method: 'POST',
				headers: { authorization: `Bearer ${sandbox.apiKey}` },
				body: new URLSearchParams({
					to: `+9198200${String(index).padStart(5, '0')}`,
					type: 'template',
					template_name: 'welcome',
					components: JSON.stringify({ body: { 1: 'Asha' } }),
				}),
			}),
		);
		expect((await Promise.all(sends)).map((response) => response.status)).toEqual(
			Array(MESSAGES).fill(200),
		);

		// Every WhatsApp message goes delivered, then read.
		const expected = 2 * MESSAGES;
		const deadline = Date.now() + 20_000;
		while (trigger.runs.flat().length < expected && Date.now() < deadline)
			await new Promise((resolve) => setTimeout(resolve, 50));
		await new Promise((resolve) => setTimeout(resolve, 500));

		const items = trigger.runs.flat().map((item) => item.json);
		expect(new Set(items.map((event) => event.event_id)).size).toBe(expected);
		expect(items).toHaveLength(expected);
		expect(items.filter((event) => event.status === 'read')).toHaveLength(MESSAGES);
		expect(trigger.runs.length).toBeLessThanOrEqual(expected / 4);
		expect(Math.max(...trigger.runs.map((run) => run.length))).toBeLessThanOrEqual(100);
		const delivered = sandbox.webhookDeliveries();
		expect(delivered.every((attempt) => attempt.status === 200)).toBe(true);
	});
});
