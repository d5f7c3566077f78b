import { startSandbox, type Sandbox, type WebhookDelivery } from '../../../sandbox';
import { startTriggerHarness, type TriggerHarness } from './support/triggerHarness';

const ENTITY_ID = '1201159876543210123';
const ORDER_SHIPPED_TEMPLATE = '1207161111111111111';
const REACHABLE = '+919812345678';
const DND_BLOCKED = '+919800000001';

async function sendSms(sandbox: Sandbox, to: string, callbackUrl?: string): Promise<string> {
	const fields = new URLSearchParams({
		to,
		entity_id: ENTITY_ID,
		template_id: ORDER_SHIPPED_TEMPLATE,
		content: JSON.stringify({ customer_name: 'Asha', order_id: '1234', eta: '24 Nov' }),
	});
	if (callbackUrl) fields.set('callback_url', callbackUrl);
	const response = await fetch(`${sandbox.url}/v1/sms/send`, {
		method: 'POST',
		headers: { authorization: `Bearer ${sandbox.apiKey}` },
		body: fields,
	});
	expect(response.status).toBe(200);
	return ((await response.json()) as { message_id: string }).message_id;
}

async function sendWhatsAppSession(sandbox: Sandbox, to: string): Promise<string> {
	const response = await fetch(`${sandbox.url}/v1/whatsapp/send`, {
		method: 'POST',
		headers: { authorization: `Bearer ${sandbox.apiKey}` },
		body: new URLSearchParams({ to, type: 'session', text: 'Your order is on its way' }),
	});
	expect(response.status).toBe(200);
	return ((await response.json()) as { message_id: string }).message_id;
}

function acknowledged(deliveries: WebhookDelivery[], messageId: string): WebhookDelivery[] {
	return deliveries.filter(
		(delivery) =>
			delivery.messageId === messageId && delivery.status !== null && delivery.status < 300,
	);
}

async function waitForAcknowledged(
	sandbox: Sandbox,
	messageId: string,
	finalStatus: string,
): Promise<WebhookDelivery[]> {
	const deadline = Date.now() + 10_000;
	while (Date.now() < deadline) {
		const done = acknowledged(sandbox.webhookDeliveries(), messageId);
		if (done.some((delivery) => delivery.messageStatus === finalStatus)) return done;
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
	throw new Error(
		`No acknowledged "${finalStatus}" event for ${messageId}; deliveries: ${JSON.stringify(sandbox.webhookDeliveries())}`,
	);
}

function runEventIds(harness: TriggerHarness): string[] {
	return harness.runs.flat().map((item) => item.json.event_id as string);
}

describe("Messaging Trigger receiving the sandbox's signed delivery events", () => {
	let sandbox: Sandbox;
	let harness: TriggerHarness;

	async function start(parameters = {}, signingSecret?: string, maxAttempts = 4): Promise<void> {
		sandbox = await startSandbox({
			port: 0,
			lifecycle: { stepDelayMs: 10 },
			webhooks: { baseDelayMs: 20, maxAttempts },
		});
		harness = await startTriggerHarness({
			signingSecret: signingSecret ?? sandbox.signingSecret,
			parameters,
		});
	}

	afterEach(async () => {
		await sandbox.close();
		await harness.close();
	});

	it('runs once per status change of an SMS sent with callback_url, in order, with the event as sent', async () => {
		await start();
		const messageId = await sendSms(sandbox, REACHABLE, harness.url);

		const deliveries = await waitForAcknowledged(sandbox, messageId, 'delivered');

		expect(deliveries.map((delivery) => delivery.messageStatus)).toEqual(['sent', 'delivered']);
		expect(deliveries.every((delivery) => delivery.attempt === 1)).toBe(true);
		expect(harness.runs).toHaveLength(2);
		expect(runEventIds(harness)).toEqual(deliveries.map((delivery) => delivery.eventId));
		expect(harness.runs[1]).toEqual([
			{
				json: {
					event_id: deliveries[1].eventId,
					type: 'message.status',
					message_id: messageId,
					channel: 'sms',
					status: 'delivered',
					timestamp: expect.any(String),
					recipient: REACHABLE,
					error: null,
				},
			},
		]);
		expect(harness.logs.filter((entry) => entry.level === 'warn')).toEqual([]);
	});

	it('receives events at the account webhook URL when the message has no callback_url', async () => {
		await start();
		sandbox.setWebhookUrl(harness.url);
		const messageId = await sendWhatsAppSession(sandbox, REACHABLE);

		const deliveries = await waitForAcknowledged(sandbox, messageId, 'read');

		expect(deliveries.map((delivery) => delivery.messageStatus)).toEqual(['delivered', 'read']);
		expect(harness.runs.flat().map((item) => [item.json.channel, item.json.status])).toEqual([
			['whatsapp', 'delivered'],
			['whatsapp', 'read'],
		]);
	});

	it('runs only for the failure of a blocked recipient, with its reason, when filtered to failures', async () => {
		await start({ statuses: ['failed', 'undelivered'] });
		const delivered = await sendSms(sandbox, REACHABLE, harness.url);
		const blocked = await sendSms(sandbox, DND_BLOCKED, harness.url);

		await waitForAcknowledged(sandbox, delivered, 'delivered');
		await waitForAcknowledged(sandbox, blocked, 'failed');

		expect(harness.runs.flat().map((item) => item.json)).toEqual([
			expect.objectContaining({
				message_id: blocked,
				status: 'failed',
				error: { code: 'dnd_blocked', message: expect.any(String) },
			}),
		]);
		const everyAttempt = sandbox.webhookDeliveries();
		expect(everyAttempt.map((delivery) => delivery.status)).toEqual(everyAttempt.map(() => 200));
	});

	it('does not run a second time when the sandbox retries an event whose acknowledgement was lost', async () => {
		await start();
		harness.loseNextAcknowledgements(1);
		const messageId = await sendSms(sandbox, REACHABLE, harness.url);

		await waitForAcknowledged(sandbox, messageId, 'delivered');

		const attempts = sandbox
			.webhookDeliveries()
			.filter((delivery) => delivery.messageId === messageId);
		const retried = attempts.filter((delivery) => delivery.eventId === attempts[0].eventId);
		expect(retried.map((delivery) => [delivery.attempt, delivery.status])).toEqual([
			[1, null],
			[2, 200],
		]);
		expect(runEventIds(harness)).toEqual([
			...new Set(attempts.map((delivery) => delivery.eventId)),
		]);
		expect(harness.runs).toHaveLength(2);
	});

	it('runs an event once when n8n could not start its first execution: the sandbox got 500 and retried', async () => {
		await start();
		harness.failNextHandOffs(1);
		const messageId = await sendSms(sandbox, REACHABLE, harness.url);

		await waitForAcknowledged(sandbox, messageId, 'delivered');

		const attempts = sandbox
			.webhookDeliveries()
			.filter((delivery) => delivery.messageId === messageId);
		const retried = attempts.filter((delivery) => delivery.eventId === attempts[0].eventId);
		expect(retried.map((delivery) => [delivery.attempt, delivery.status])).toEqual([
			[1, 500],
			[2, 200],
		]);
		expect(runEventIds(harness)).toEqual([
			...new Set(attempts.map((delivery) => delivery.eventId)),
		]);
		expect(harness.runs).toHaveLength(2);
	});

	it('refuses every attempt signed with another account secret, so the sandbox keeps the events', async () => {
		await start({}, 'whsec_not_the_account_secret', 2);
		const messageId = await sendSms(sandbox, REACHABLE, harness.url);

		const deadline = Date.now() + 10_000;
		let attempts: WebhookDelivery[] = [];
		while (Date.now() < deadline) {
			attempts = sandbox.webhookDeliveries().filter((delivery) => delivery.messageId === messageId);
			if (attempts.length >= 4) break;
			await new Promise((resolve) => setTimeout(resolve, 20));
		}

		expect(
			attempts.map((delivery) => [delivery.messageStatus, delivery.attempt, delivery.status]),
		).toEqual([
			['sent', 1, 401],
			['sent', 2, 401],
			['delivered', 1, 401],
			['delivered', 2, 401],
		]);
		expect(harness.runs).toHaveLength(0);
		expect(harness.logs.filter((entry) => entry.level === 'warn')).toHaveLength(4);
	});
});
