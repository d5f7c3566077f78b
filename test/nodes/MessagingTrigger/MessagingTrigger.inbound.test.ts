import { startSandbox, type InboundEvent, type Sandbox } from '../../../sandbox';
import { CURRENT_TRIGGER_VERSION } from './support/n8nRuntime';
import { deliveryEvent, inboundEvent, nowSeconds, postDelivery } from './support/signedDelivery';
import { startTriggerHarness, type TriggerHarness } from './support/triggerHarness';

const SECRET = 'whsec_trigger_inbound_5b2e';
const DAY_MS = 24 * 60 * 60 * 1000;

function windowAfter(timestamp: string): string {
	return new Date(Date.parse(timestamp) + DAY_MS).toISOString();
}

describe('Messaging Trigger receiving inbound WhatsApp messages, signed, over real HTTP', () => {
	let harness: TriggerHarness;

	afterEach(async () => {
		await harness.close();
	});

	async function start(parameters = {}, typeVersion = CURRENT_TRIGGER_VERSION): Promise<void> {
		harness = await startTriggerHarness({ signingSecret: SECRET, parameters, typeVersion });
	}

	it("runs a text message as one item: the event as sent, with the session window's end", async () => {
		await start();
		const event = inboundEvent({ timestamp: '2026-11-23T10:00:00.000Z' });

		const result = await postDelivery(harness.url, JSON.stringify(event), { secret: SECRET });

		expect(result).toEqual({
			status: 200,
			body: { received: 1, accepted: 1, duplicates: 0, filteredOut: 0 },
		});
		expect(harness.runs).toEqual([
			[{ json: { ...event, window_expires_at: '2026-11-24T10:00:00.000Z' } }],
		]);
		expect(harness.logs.filter((entry) => entry.level === 'warn')).toEqual([]);
	});

	it('runs a quick-reply button press with its payload and the template message it answers', async () => {
		await start({ events: ['message.inbound'] });
		const event = inboundEvent({
			message_type: 'button',
			text: undefined,
			button: { payload: 'book-visit-L-1042', text: 'Book a visit' },
			context: { message_id: 'msg_template_7' },
		});
		delete event.text;

		await postDelivery(harness.url, JSON.stringify(event), { secret: SECRET });

		expect(harness.runs).toEqual([
			[{ json: { ...event, window_expires_at: windowAfter(event.timestamp) } }],
		]);
		expect(harness.runs[0][0].json).not.toHaveProperty('text');
	});

	it('makes one item per message of a batch, status updates among them left as sent', async () => {
		await start();
		const first = inboundEvent({ text: 'Hello' });
		const status = deliveryEvent({ status: 'read', channel: 'whatsapp' });
		const second = inboundEvent({ text: 'Are you there?' });

		const result = await postDelivery(harness.url, JSON.stringify([first, status, second]), {
			secret: SECRET,
		});

		expect(result.body).toEqual({ received: 3, accepted: 3, duplicates: 0, filteredOut: 0 });
		expect(harness.runs).toEqual([
			[
				{ json: { ...first, window_expires_at: windowAfter(first.timestamp) } },
				{ json: status },
				{ json: { ...second, window_expires_at: windowAfter(second.timestamp) } },
			],
		]);
	});

	it('runs a redelivered inbound message once, and answers the retry 200 as a duplicate', async () => {
		await start();
		const body = JSON.stringify(inboundEvent());

		const first = await postDelivery(harness.url, body, { secret: SECRET });
		const retry = await postDelivery(harness.url, body, {
			secret: SECRET,
			timestamp: nowSeconds() + 1,
		});

		expect(first.status).toBe(200);
		expect(retry).toEqual({
			status: 200,
			body: { received: 1, accepted: 0, duplicates: 1, filteredOut: 0 },
		});
		expect(harness.runs).toHaveLength(1);
	});

	it('refuses an inbound message whose text was changed after signing, with 401 and a warning', async () => {
		await start();
		const signed = JSON.stringify(inboundEvent({ text: 'Please cancel my order' }));
		const tampered = signed.replace('Please cancel my order', 'Please send 10 more');

		const result = await postDelivery(harness.url, tampered, {
			secret: SECRET,
			signedBody: signed,
		});

		expect(result).toEqual({
			status: 401,
			body: { error: { code: 'invalid_signature', message: expect.any(String) } },
		});
		expect(harness.runs).toHaveLength(0);
		expect(
			harness.logs.filter((entry) => entry.level === 'warn').map((entry) => entry.message),
		).toEqual([expect.stringContaining('401 invalid_signature')]);
	});

	it('refuses a signed inbound message without a sender with 400 naming the field', async () => {
		await start();
		const event: Partial<ReturnType<typeof inboundEvent>> = inboundEvent();
		delete event.from;

		const result = await postDelivery(harness.url, JSON.stringify(event), { secret: SECRET });

		expect(result).toEqual({
			status: 400,
			body: {
				error: { code: 'invalid_event', field: 'from', message: expect.stringContaining('"from"') },
			},
		});
		expect(harness.runs).toHaveLength(0);
	});

	it('acknowledges an inbound message with 200 and runs nothing when only status updates are selected', async () => {
		await start({ events: ['message.status'] });

		const result = await postDelivery(harness.url, JSON.stringify(inboundEvent()), {
			secret: SECRET,
		});

		expect(result).toEqual({
			status: 200,
			body: { received: 1, accepted: 0, duplicates: 0, filteredOut: 1 },
		});
		expect(harness.runs).toHaveLength(0);
		expect(harness.staticData()).toEqual({});
	});

	it('acknowledges a status update with 200 and runs nothing when only inbound messages are selected', async () => {
		await start({ events: ['message.inbound'], statuses: ['delivered'] });

		const result = await postDelivery(
			harness.url,
			JSON.stringify(deliveryEvent({ status: 'delivered' })),
			{ secret: SECRET },
		);

		expect(result.body).toEqual({ received: 1, accepted: 0, duplicates: 0, filteredOut: 1 });
		expect(harness.runs).toHaveLength(0);
	});

	it('keeps a trigger saved before inbound messages (version 1, no Events value) on status updates only', async () => {
		await start({}, 1);
		const status = deliveryEvent();

		const inbound = await postDelivery(harness.url, JSON.stringify(inboundEvent()), {
			secret: SECRET,
		});
		await postDelivery(harness.url, JSON.stringify(status), { secret: SECRET });

		expect(inbound).toEqual({
			status: 200,
			body: { received: 1, accepted: 0, duplicates: 0, filteredOut: 1 },
		});
		expect(harness.runs).toEqual([[{ json: status }]]);
	});

	it('lets a version 1 trigger receive inbound messages once the user selects them', async () => {
		await start({ events: ['message.inbound', 'message.status'] }, 1);

		await postDelivery(harness.url, JSON.stringify(inboundEvent()), { secret: SECRET });

		expect(harness.runs).toHaveLength(1);
	});
});

describe("Messaging Trigger receiving the sandbox's signed inbound messages", () => {
	let sandbox: Sandbox;
	let harness: TriggerHarness;

	beforeEach(async () => {
		sandbox = await startSandbox({
			lifecycle: null,
			webhooks: { baseDelayMs: 20, maxAttempts: 3 },
		});
		harness = await startTriggerHarness({
			signingSecret: sandbox.signingSecret,
			parameters: { events: ['message.inbound'] },
			typeVersion: CURRENT_TRIGGER_VERSION,
		});
		sandbox.setWebhookUrl(harness.url);
	});
	afterEach(async () => {
		await sandbox.close();
		await harness.close();
	});

	async function runFor(event: InboundEvent): Promise<Record<string, unknown>> {
		const deadline = Date.now() + 10_000;
		while (Date.now() < deadline) {
			const item = harness.runs
				.flat()
				.find((candidate) => candidate.json.event_id === event.event_id);
			if (item) return item.json;
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
		throw new Error(
			`no run for ${event.event_id}; deliveries: ${JSON.stringify(sandbox.webhookDeliveries())}`,
		);
	}

	it('runs a text the sandbox signed, and ignores the status updates of the reply it allowed', async () => {
		const event = sandbox.simulateInbound({
			from: '+919833333333',
			text: 'Is the flat still free?',
		});

		expect(await runFor(event)).toEqual({
			...event,
			window_expires_at: windowAfter(event.timestamp),
		});

		sandbox.configure({ lifecycle: { stepDelayMs: 5 } });
		const reply = await fetch(`${sandbox.url}/v1/whatsapp/send`, {
			method: 'POST',
			headers: { authorization: `Bearer ${sandbox.apiKey}` },
			body: new URLSearchParams({ to: '+919833333333', type: 'session', text: 'Yes, it is.' }),
		});
		expect(reply.status).toBe(200);
		const deadline = Date.now() + 10_000;
		while (
			sandbox.webhookDeliveries().filter((delivery) => delivery.status === 200).length < 3 &&
			Date.now() < deadline
		) {
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
		expect(
			sandbox.webhookDeliveries().map((delivery) => [delivery.eventType, delivery.status]),
		).toEqual([
			['message.inbound', 200],
			['message.status', 200],
			['message.status', 200],
		]);
		expect(harness.runs).toHaveLength(1);
	});

	it('runs a button press on a template the sandbox sent, with the payload that template carried', async () => {
		const sent = await fetch(`${sandbox.url}/v1/whatsapp/send`, {
			method: 'POST',
			headers: { authorization: `Bearer ${sandbox.apiKey}` },
			body: new URLSearchParams({
				to: '+919833333333',
				type: 'template',
				template_name: 'lead_followup',
				components: JSON.stringify({
					body: { 1: 'Ravi', 2: 'the 2BHK' },
					buttons: { 1: 'book-visit-L-77' },
				}),
			}),
		});
		const { message_id: templateId } = (await sent.json()) as { message_id: string };

		const event = sandbox.simulateInbound({ button: { messageId: templateId, position: 1 } });

		expect(await runFor(event)).toEqual(
			expect.objectContaining({
				type: 'message.inbound',
				from: '+919833333333',
				message_type: 'button',
				button: { payload: 'book-visit-L-77', text: 'Book a visit' },
				context: { message_id: templateId },
				window_expires_at: windowAfter(event.timestamp),
			}),
		);
	});
});
