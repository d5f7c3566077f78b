import { createHmac } from 'node:crypto';
import { createManualClock, signPayload, startSandbox, type Sandbox } from '../../sandbox';
import { OTP_TEMPLATE_ID, ENTITY_ID, post, smsFields, whatsappTemplateFields } from './http-client';
import { installSandboxTime } from './sandbox-time';
import { pause, startWebhookReceiver, waitUntil, type WebhookReceiver } from './webhook-receiver';

const STEP_MS = 5;
const START = Date.UTC(2026, 10, 22, 13, 0, 0);

async function sendSms(sandbox: Sandbox, overrides: Record<string, unknown> = {}): Promise<string> {
	const reply = await post(sandbox, '/v1/sms/send', smsFields(overrides));
	expect(reply.status).toBe(200);
	return (reply.body as { message_id: string }).message_id;
}

function independentSignature(secret: string, timestamp: string, rawBody: string): string {
	return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex');
}

describe('message lifecycle and signed delivery events', () => {
	let sandbox: Sandbox;
	let accountReceiver: WebhookReceiver;
	let callbackReceiver: WebhookReceiver;

	beforeEach(async () => {
		accountReceiver = await startWebhookReceiver();
		callbackReceiver = await startWebhookReceiver();
		sandbox = await startSandbox({
			clock: createManualClock(START),
			lifecycle: { stepDelayMs: STEP_MS },
			webhooks: { baseDelayMs: 5, timeoutMs: 2000, maxAttempts: 4 },
		});
		sandbox.setWebhookUrl(accountReceiver.url);
	});
	afterEach(async () => {
		await sandbox.close();
		await accountReceiver.close();
		await callbackReceiver.close();
	});

	it('moves an SMS queued -> sent -> delivered and posts each change, signed, to the account webhook', async () => {
		const messageId = await sendSms(sandbox);
		const deliveries = await accountReceiver.waitFor(2);

		expect(deliveries.map((delivery) => delivery.event.status)).toEqual(['sent', 'delivered']);
		for (const { headers, rawBody, event } of deliveries) {
			expect(event).toEqual({
				event_id: expect.stringMatching(/^evt_[0-9A-Z]{26}$/),
				type: 'message.status',
				message_id: messageId,
				channel: 'sms',
				status: event.status,
				timestamp: new Date(START).toISOString(),
				recipient: '+919812345678',
				error: null,
			});
			expect(headers['content-type']).toBe('application/json');
			expect(headers['x-messaging-event-id']).toBe(event.event_id);
			expect(headers['x-messaging-timestamp']).toBe(String(START / 1000));
			const timestamp = headers['x-messaging-timestamp'] as string;
			expect(headers['x-messaging-signature']).toBe(
				`v1=${independentSignature(sandbox.signingSecret, timestamp, rawBody)}`,
			);
			expect(headers['x-messaging-signature']).not.toBe(
				`v1=${independentSignature('whsec_wrong', timestamp, rawBody)}`,
			);
		}
		expect(new Set(deliveries.map((delivery) => delivery.event.event_id)).size).toBe(2);

		const [message] = sandbox.messages();
		expect(message.history.map((change) => change.status)).toEqual(['queued', 'sent', 'delivered']);
		expect(message.status).toBe('delivered');
		expect(callbackReceiver.received).toHaveLength(0);
	});

	it('moves a WhatsApp message sent -> delivered -> read', async () => {
		const reply = await post(sandbox, '/v1/whatsapp/send', whatsappTemplateFields());
		const deliveries = await accountReceiver.waitFor(2);
		expect(deliveries.map((delivery) => [delivery.event.channel, delivery.event.status])).toEqual([
			['whatsapp', 'delivered'],
			['whatsapp', 'read'],
		]);
		expect(deliveries[0].event.message_id).toBe((reply.body as { message_id: string }).message_id);
		expect(sandbox.messages()[0].history.map((change) => change.status)).toEqual([
			'sent',
			'delivered',
			'read',
		]);
	});

	it.each([
		[
			'sms',
			'+919800000001',
			['failed'],
			{ code: 'dnd_blocked', message: 'Recipient is on the Do-Not-Disturb registry' },
		],
		[
			'sms',
			'+919800000002',
			['sent', 'undelivered'],
			{ code: 'handset_unreachable', message: expect.any(String) },
		],
		[
			'whatsapp',
			'+919800000003',
			['failed'],
			{ code: 'not_on_whatsapp', message: expect.any(String) },
		],
	])(
		'reports a %s to failing recipient %s with its reason',
		async (channel, to, statuses, error) => {
			const reply =
				channel === 'sms'
					? await post(sandbox, '/v1/sms/send', smsFields({ to }))
					: await post(sandbox, '/v1/whatsapp/send', whatsappTemplateFields({ to }));
			expect(reply.body).toMatchObject({ status: channel === 'sms' ? 'queued' : 'sent' });

			const deliveries = await accountReceiver.waitFor(statuses.length);
			await pause(STEP_MS * 4);
			expect(accountReceiver.received.map((delivery) => delivery.event.status)).toEqual(statuses);
			const last = deliveries[deliveries.length - 1].event;
			expect(last.error).toEqual(error);
			expect(last.recipient).toBe(to);
			expect(sandbox.messages()[0]).toMatchObject({ status: statuses[statuses.length - 1], error });
		},
	);

	it('posts to the callback_url instead of the account webhook, never both', async () => {
		await sendSms(sandbox, { callback_url: callbackReceiver.url });
		await sendSms(sandbox, {
			template_id: OTP_TEMPLATE_ID,
			entity_id: ENTITY_ID,
			content: { otp: '4821' },
		});
		await callbackReceiver.waitFor(2);
		await accountReceiver.waitFor(2);
		await pause(STEP_MS * 4);

		const [withCallback, withoutCallback] = sandbox.messages();
		expect(callbackReceiver.received.map((delivery) => delivery.event.message_id)).toEqual([
			withCallback.id,
			withCallback.id,
		]);
		expect(accountReceiver.received.map((delivery) => delivery.event.message_id)).toEqual([
			withoutCallback.id,
			withoutCallback.id,
		]);
	});

	it('retries a failing delivery with the same event id until the receiver answers 2xx, keeping events in order', async () => {
		await accountReceiver.close();
		accountReceiver = await startWebhookReceiver((index) => ({ status: index < 2 ? 503 : 204 }));
		sandbox.setWebhookUrl(accountReceiver.url);

		await sendSms(sandbox);
		const deliveries = await accountReceiver.waitFor(4);

		const [first, second, third, fourth] = deliveries.map((delivery) => delivery.event);
		expect(first.status).toBe('sent');
		expect([second.event_id, third.event_id]).toEqual([first.event_id, first.event_id]);
		expect(fourth).toMatchObject({ status: 'delivered' });
		expect(fourth.event_id).not.toBe(first.event_id);
		expect(deliveries.map((delivery) => delivery.rawBody).slice(0, 3)).toEqual(
			Array(3).fill(deliveries[0].rawBody),
		);
		await waitUntil(
			() => sandbox.webhookDeliveries().length === 4,
			'the sandbox recorded 4 attempts',
		);

		expect(sandbox.webhookDeliveries()).toEqual([
			expect.objectContaining({
				eventId: first.event_id,
				attempt: 1,
				status: 503,
				error: null,
				url: accountReceiver.url,
			}),
			expect.objectContaining({ eventId: first.event_id, attempt: 2, status: 503 }),
			expect.objectContaining({
				eventId: first.event_id,
				attempt: 3,
				status: 204,
				messageStatus: 'sent',
			}),
			expect.objectContaining({
				eventId: fourth.event_id,
				attempt: 1,
				status: 204,
				messageStatus: 'delivered',
			}),
		]);
	});

	it('retries after a receiver timeout', async () => {
		await accountReceiver.close();
		accountReceiver = await startWebhookReceiver((index) => ({
			status: 200,
			delayMs: index === 0 ? 800 : 0,
		}));
		await sandbox.close();
		sandbox = await startSandbox({
			lifecycle: { stepDelayMs: STEP_MS },
			webhooks: { baseDelayMs: 5, timeoutMs: 150 },
		});
		sandbox.setWebhookUrl(accountReceiver.url);

		await sendSms(sandbox);
		await accountReceiver.waitFor(3);
		await waitUntil(
			() => sandbox.webhookDeliveries().length >= 2,
			'the sandbox recorded 2 attempts',
		);
		const [timedOut, retried] = sandbox.webhookDeliveries();
		expect(timedOut).toMatchObject({
			attempt: 1,
			status: null,
			error: expect.stringContaining('150 ms'),
		});
		expect(retried).toMatchObject({ attempt: 2, status: 200, eventId: timedOut.eventId });
	});

	it('gives up after maxAttempts and still delivers the next event', async () => {
		await accountReceiver.close();
		accountReceiver = await startWebhookReceiver((_index, delivery) => ({
			status: delivery.event.status === 'sent' ? 500 : 200,
		}));
		sandbox.setWebhookUrl(accountReceiver.url);

		await sendSms(sandbox);
		await accountReceiver.waitFor(5);
		await waitUntil(
			() => sandbox.webhookDeliveries().length === 5,
			'the sandbox recorded 5 attempts',
		);
		const attempts = sandbox.webhookDeliveries();
		expect(
			attempts.map((attempt) => [attempt.messageStatus, attempt.attempt, attempt.status]),
		).toEqual([
			['sent', 1, 500],
			['sent', 2, 500],
			['sent', 3, 500],
			['sent', 4, 500],
			['delivered', 1, 200],
		]);
	});

	it('waits exponentially longer between retries', async () => {
		// Arrivals are read on sandbox time, which moves only to the next delay the sandbox asked for.
		const time = installSandboxTime();
		try {
			await accountReceiver.close();
			const arrivals: number[] = [];
			accountReceiver = await startWebhookReceiver(() => {
				arrivals.push(time.now());
				return { status: 500 };
			});
			await sandbox.close();
			sandbox = await startSandbox({
				lifecycle: { stepDelayMs: 0 },
				webhooks: { baseDelayMs: 40, maxAttempts: 4, timeoutMs: 500 },
			});
			sandbox.setWebhookUrl(accountReceiver.url);
			await post(sandbox, '/v1/sms/send', smsFields({ to: '+919800000001' }));
			while (arrivals.length < 4) {
				await time.untilPending(1, () => arrivals.length >= 4);
				if (arrivals.length < 4) await time.advanceToNextDelay();
			}
			const gaps = arrivals.slice(1).map((at, index) => at - arrivals[index]);
			expect(gaps).toEqual([40, 80, 160]);
		} finally {
			time.restore();
		}
	});

	it('sends nothing when there is no webhook URL, while the status still moves on', async () => {
		sandbox.setWebhookUrl(null);
		await sendSms(sandbox);
		await pause(STEP_MS * 6);
		expect(sandbox.messages()[0].status).toBe('delivered');
		expect(sandbox.webhookDeliveries()).toEqual([]);
		expect(accountReceiver.received).toEqual([]);
	});

	it('keeps the acknowledged status when the lifecycle is off', async () => {
		sandbox.configure({ lifecycle: null });
		await sendSms(sandbox);
		await pause(STEP_MS * 6);
		expect(sandbox.messages()[0].history.map((change) => change.status)).toEqual(['queued']);
		expect(accountReceiver.received).toEqual([]);
	});

	it('closes promptly while a delivery waits on a slow receiver', async () => {
		await accountReceiver.close();
		// The receiver holds its answer for a minute: close() must not wait for it.
		accountReceiver = await startWebhookReceiver(() => ({ status: 200, delayMs: 60_000 }));
		sandbox.setWebhookUrl(accountReceiver.url);
		await sendSms(sandbox);
		await accountReceiver.waitFor(1);

		await sandbox.close();
		expect(accountReceiver.answered()).toBe(0);
		await pause(STEP_MS * 4);
		expect(accountReceiver.received).toHaveLength(1);
	});

	it('refuses a webhook URL that is not absolute http(s)', () => {
		expect(() => sandbox.setWebhookUrl('/hooks')).toThrow(/absolute/);
		expect(() => sandbox.setWebhookUrl('ftp://example.com')).toThrow(/http/);
	});
});

describe('signPayload', () => {
	it('is the hex HMAC-SHA256 of "<timestamp>.<raw body>"', () => {
		const rawBody = '{"event_id":"evt_1","status":"delivered"}';
		expect(signPayload('whsec_sandbox_8d3b6a0f5e7c', 1795352400, rawBody)).toBe(
			independentSignature('whsec_sandbox_8d3b6a0f5e7c', '1795352400', rawBody),
		);
		expect(signPayload('whsec_sandbox_8d3b6a0f5e7c', 1795352400, rawBody)).toMatch(
			/^[0-9a-f]{64}$/,
		);
		expect(signPayload('whsec_sandbox_8d3b6a0f5e7c', 1795352401, rawBody)).not.toBe(
			signPayload('whsec_sandbox_8d3b6a0f5e7c', 1795352400, rawBody),
		);
	});
});
