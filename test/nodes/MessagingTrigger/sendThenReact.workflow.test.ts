import { startSandbox, type Sandbox } from '../../../sandbox';
import { loadWorkflowFixture, runWorkflow } from '../../helpers/runWorkflow';
import { startTriggerHarness, type TriggerHarness } from './support/triggerHarness';

const sendSms = loadWorkflowFixture('sms-send');

async function eventually(condition: () => boolean, description: string): Promise<void> {
	const deadline = Date.now() + 10_000;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error(`Timed out waiting for ${description}`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

describe('Send, then react: the Messaging node sends with a Callback URL, the trigger gets the outcome', () => {
	let sandbox: Sandbox;
	let trigger: TriggerHarness;

	beforeEach(async () => {
		sandbox = await startSandbox({
			port: 0,
			lifecycle: { stepDelayMs: 10 },
			webhooks: { baseDelayMs: 20 },
		});
		trigger = await startTriggerHarness({
			signingSecret: sandbox.signingSecret,
			parameters: { statuses: ['delivered', 'failed', 'undelivered'] },
		});
	});

	afterEach(async () => {
		await sandbox.close();
		await trigger.close();
	});

	it('reports delivered for a reachable recipient and failed with its reason for a blocked one', async () => {
		const { outputs, error } = await runWorkflow({
			workflow: sendSms,
			credentials: { baseUrl: sandbox.url, apiKey: sandbox.apiKey },
			items: [
				{ json: { phone: '+919812345678', name: 'Asha', orderId: '1234', eta: '24 Nov' } },
				{ json: { phone: '+919800000001', name: 'Ravi', orderId: '1235', eta: '25 Nov' } },
			],
			parameters: { Messaging: { options: { callbackUrl: trigger.url } } },
		});
		expect(error).toBeUndefined();
		const [reachable, blocked] = outputs.Messaging.map((item) => item.json.message_id as string);

		await eventually(() => trigger.runs.length === 2, 'the delivered and the failed event');

		const outcomes = Object.fromEntries(
			trigger.runs.flat().map((item) => [item.json.message_id, item.json]),
		);
		expect(outcomes[reachable]).toEqual(
			expect.objectContaining({ status: 'delivered', channel: 'sms', error: null }),
		);
		expect(outcomes[blocked]).toEqual(
			expect.objectContaining({
				status: 'failed',
				recipient: '+919800000001',
				error: { code: 'dnd_blocked', message: expect.any(String) },
			}),
		);
		const sentEvents = sandbox
			.webhookDeliveries()
			.filter((delivery) => delivery.messageStatus === 'sent');
		expect(sentEvents.map((delivery) => delivery.status)).toEqual([200]);
	});
});
