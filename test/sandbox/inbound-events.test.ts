import { createHmac } from 'node:crypto';
import { createManualClock, startSandbox, type InboundEvent, type Sandbox } from '../../sandbox';
import { post, smsFields, whatsappTemplateFields } from './http-client';
import {
	startWebhookReceiver,
	waitUntil,
	type ReceivedDelivery,
	type WebhookReceiver,
} from './webhook-receiver';

const START = Date.UTC(2026, 10, 23, 10, 0, 0);
const BUSINESS_NUMBER = '+918000012345';
const CUSTOMER = '+919833333333';

async function admin(sandbox: Sandbox, body: unknown) {
	const response = await fetch(`${sandbox.url}/__admin/inbound`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify(body),
	});
	return {
		status: response.status,
		body: (await response.json()) as {
			from?: string;
			event?: InboundEvent;
			error?: { message: string };
		},
	};
}

async function sendTemplate(
	sandbox: Sandbox,
	to: string,
	encoding: 'form' | 'json' = 'form',
): Promise<string> {
	const reply = await post(sandbox, '/v1/whatsapp/send', whatsappTemplateFields({ to }), {
		encoding,
	});
	expect(reply.status).toBe(200);
	return (reply.body as { message_id: string }).message_id;
}

const session = (sandbox: Sandbox, to: string) =>
	post(sandbox, '/v1/whatsapp/send', { to, type: 'session', text: 'Thanks!' });

function inbound(delivery: ReceivedDelivery): InboundEvent {
	return JSON.parse(delivery.rawBody) as InboundEvent;
}

describe('inbound WhatsApp messages: message.inbound events to the account webhook', () => {
	let sandbox: Sandbox;
	let receiver: WebhookReceiver;
	/** The receiver answers its first delivery 500, so the sandbox has to retry it. */
	let failFirst = false;

	beforeEach(async () => {
		receiver = await startWebhookReceiver((index) => ({
			status: index === 0 && failFirst ? 500 : 200,
		}));
		sandbox = await startSandbox({
			lifecycle: null,
			clock: createManualClock(START),
			webhooks: { baseDelayMs: 5, maxAttempts: 3 },
		});
		sandbox.setWebhookUrl(receiver.url);
	});
	afterEach(async () => {
		failFirst = false;
		await sandbox.close();
		await receiver.close();
	});

	it('posts a signed text event, opens the session window and answers the event to the admin call', async () => {
		expect((await session(sandbox, CUSTOMER)).status).toBe(422);

		const reply = await admin(sandbox, { from: CUSTOMER, text: 'Where is my order?' });
		const [delivery] = await receiver.waitFor(1);

		const expected = {
			event_id: expect.stringMatching(/^evt_[0-9A-Z]{26}$/),
			type: 'message.inbound',
			message_id: expect.stringMatching(/^msg_[0-9A-Z]{26}$/),
			channel: 'whatsapp',
			from: CUSTOMER,
			to: BUSINESS_NUMBER,
			timestamp: new Date(START).toISOString(),
			message_type: 'text',
			text: 'Where is my order?',
		};
		expect(inbound(delivery)).toEqual(expected);
		expect(reply).toEqual({ status: 200, body: { from: CUSTOMER, event: inbound(delivery) } });
		const timestamp = delivery.headers['x-messaging-timestamp'] as string;
		expect(timestamp).toBe(String(START / 1000));
		expect(delivery.headers['x-messaging-event-id']).toBe(inbound(delivery).event_id);
		const signature = createHmac('sha256', sandbox.signingSecret)
			.update(`${timestamp}.${delivery.rawBody}`)
			.digest('hex');
		expect(delivery.headers['x-messaging-signature']).toBe(`v1=${signature}`);
		expect((await session(sandbox, CUSTOMER)).status).toBe(200);
	});

	it('sends "Hi" when no text is given, as a text message', async () => {
		const event = sandbox.simulateInbound(CUSTOMER);
		const [delivery] = await receiver.waitFor(1);
		expect(inbound(delivery)).toEqual(event);
		expect(event).toEqual(
			expect.objectContaining({ message_type: 'text', text: 'Hi', from: CUSTOMER }),
		);
		expect(event).not.toHaveProperty('context');
	});

	it('marks a reply to one of our messages with context.message_id', async () => {
		const templateId = await sendTemplate(sandbox, CUSTOMER);
		const event = sandbox.simulateInbound({
			from: CUSTOMER,
			text: 'Yes please',
			replyTo: templateId,
		});
		expect(event.context).toEqual({ message_id: templateId });
		expect(inbound((await receiver.waitFor(1))[0]).context).toEqual({ message_id: templateId });
	});

	it.each(['form', 'json'] as const)(
		'turns a button press into the payload the template send carried (%s body)',
		async (encoding) => {
			const templateId = await sendTemplate(sandbox, CUSTOMER, encoding);

			const reply = await admin(sandbox, { button: { messageId: templateId, position: 1 } });
			const [delivery] = await receiver.waitFor(1);

			expect(reply.status).toBe(200);
			expect(inbound(delivery)).toEqual({
				event_id: expect.stringMatching(/^evt_/),
				type: 'message.inbound',
				message_id: expect.stringMatching(/^msg_/),
				channel: 'whatsapp',
				from: CUSTOMER,
				to: BUSINESS_NUMBER,
				timestamp: new Date(START).toISOString(),
				message_type: 'button',
				button: { payload: 'track-1234', text: 'Track my order' },
				context: { message_id: templateId },
			});
			expect((await session(sandbox, CUSTOMER)).status).toBe(200);
		},
	);

	it('retries an inbound event like a status event: same id and body, signed afresh, recorded without a status', async () => {
		failFirst = true;
		const event = sandbox.simulateInbound({ from: CUSTOMER, text: 'Hello?' });

		const [first, second] = await receiver.waitFor(2);
		await waitUntil(() => sandbox.webhookDeliveries().length === 2, 'both attempts are recorded');

		expect(second.rawBody).toBe(first.rawBody);
		expect(inbound(second).event_id).toBe(event.event_id);
		expect(sandbox.webhookDeliveries()).toEqual([
			expect.objectContaining({
				eventId: event.event_id,
				eventType: 'message.inbound',
				messageId: event.message_id,
				messageStatus: null,
				attempt: 1,
				status: 500,
			}),
			expect.objectContaining({
				eventId: event.event_id,
				eventType: 'message.inbound',
				messageStatus: null,
				attempt: 2,
				status: 200,
			}),
		]);
	});

	it('posts nothing without an account webhook, and still opens the window', async () => {
		sandbox.setWebhookUrl(null);
		sandbox.simulateInbound(CUSTOMER);
		expect((await session(sandbox, CUSTOMER)).status).toBe(200);
		expect(sandbox.webhookDeliveries()).toEqual([]);
		expect(receiver.received).toEqual([]);
	});

	it('refuses button presses and replies that no real user could make, with the reason', async () => {
		const templateId = await sendTemplate(sandbox, CUSTOMER);
		const sms = ((await post(sandbox, '/v1/sms/send', smsFields())).body as { message_id: string })
			.message_id;
		const sessionId = ((await session(sandbox, '+919812345678')).body as { message_id: string })
			.message_id;
		const refusals: Array<[unknown, RegExp]> = [
			[{ button: { messageId: 'msg_unknown', position: 1 } }, /not a message the sandbox accepted/],
			[{ button: { messageId: sms, position: 1 } }, /not a WhatsApp template message/],
			[{ button: { messageId: sessionId, position: 1 } }, /not a WhatsApp template message/],
			[{ button: { messageId: templateId, position: 2 } }, /no payload for button 2/],
			[{ button: { messageId: templateId, position: 0 } }, /'button.position'/],
			[
				{ button: { messageId: templateId, position: 1 }, from: '+919800000009' },
				/not the recipient/,
			],
			[
				{ button: { messageId: templateId, position: 1 }, text: 'Yes' },
				/either 'text' or 'button'/,
			],
			[{ from: '98123 45678' }, /not an E.164 number/],
			[{ from: CUSTOMER, text: '' }, /'text' must not be empty/],
			[{ from: '+919800000009', replyTo: templateId }, /was sent to/],
		];
		for (const [body, reason] of refusals) {
			const reply = await admin(sandbox, body);
			expect([JSON.stringify(body), reply.status]).toEqual([JSON.stringify(body), 400]);
			expect(reply.body.error?.message).toMatch(reason);
		}
		expect(receiver.received).toEqual([]);
	});
});
