import { parseDeliveryEvents } from '../../nodes/MessagingTrigger/events';
import { verifySignature } from '../../nodes/MessagingTrigger/verification';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox';
import {
	startWebhookReceiver,
	waitUntil,
	type ReceiverBehaviour,
	type WebhookReceiver,
} from './webhook-receiver';

/** Status events of campaigns at timeScale 0: every message's events come as fast as delivery allows. */
describe('webhook delivery like a well-run provider', () => {
	let sandbox: Sandbox | undefined;
	let receiver: WebhookReceiver | undefined;

	async function start(
		behaviour: ReceiverBehaviour | undefined,
		webhooks: SandboxOptions['webhooks'],
	): Promise<{ sandbox: Sandbox; receiver: WebhookReceiver }> {
		receiver = await startWebhookReceiver(behaviour);
		sandbox = await startSandbox({ lifecycle: null, webhooks });
		return { sandbox, receiver };
	}

	afterEach(async () => {
		await sandbox?.close();
		await receiver?.close();
		sandbox = undefined;
		receiver = undefined;
	});

	it('never holds more than maxConcurrent requests open, and uses all of them', async () => {
		const { sandbox, receiver } = await start(() => ({ status: 200, delayMs: 100 }), {
			maxConcurrent: 10,
		});
		const campaign = sandbox.startCampaign({
			count: 60,
			channel: 'sms',
			url: receiver.url,
			timeScale: 0,
			failedShare: 0,
		});
		await waitUntil(
			() => sandbox.webhookSummary().delivered === campaign.expectedEvents,
			'all answered',
			20_000,
		);

		expect(receiver.maxInFlight()).toBe(10);
		expect(sandbox.webhookSummary().maxInFlight).toBe(10);
		expect(receiver.received).toHaveLength(120);
	});

	it('holds up to 100 requests open by default', async () => {
		const { sandbox, receiver } = await start(() => ({ status: 200, delayMs: 500 }), {});
		const campaign = sandbox.startCampaign({
			count: 150,
			channel: 'sms',
			url: receiver.url,
			timeScale: 0,
			failedShare: 0,
		});
		await waitUntil(
			() => sandbox.webhookSummary().delivered === campaign.expectedEvents,
			'all answered',
			20_000,
		);

		expect(receiver.maxInFlight()).toBe(100);
	});

	it.each([429, 503])(
		'honours Retry-After on %i: nothing more goes to that URL until the seconds have passed',
		async (status) => {
			const { sandbox, receiver } = await start(
				(index) => (index === 0 ? { status, headers: { 'Retry-After': '1' } } : { status: 200 }),
				{ maxConcurrent: 1, baseDelayMs: 5 },
			);
			const campaign = sandbox.startCampaign({
				count: 3,
				channel: 'sms',
				url: receiver.url,
				timeScale: 0,
				failedShare: 0,
			});
			await waitUntil(
				() => sandbox.webhookSummary().delivered === campaign.expectedEvents,
				'all answered',
			);

			const refusedAt = receiver.answeredAt[0];
			const later = receiver.received.slice(1).map((delivery) => delivery.receivedAt - refusedAt);
			expect(Math.min(...later)).toBeGreaterThanOrEqual(990);
			const firstEvent = receiver.received[0].event.event_id;
			expect(
				sandbox
					.webhookDeliveries()
					.filter((delivery) => delivery.eventId === firstEvent)
					.map((delivery) => [delivery.attempt, delivery.status]),
			).toEqual([
				[1, status],
				[2, 200],
			]);
			expect(sandbox.webhookSummary()).toMatchObject({
				deliveredAfterAttempts: { '1': 5, '2': 1 },
				postsByHttpStatus: { [status]: 1, '200': 6 },
			});
		},
	);

	it('backs off exponentially on a 503 without Retry-After, as before', async () => {
		const { sandbox, receiver } = await start((index) => ({ status: index === 0 ? 503 : 200 }), {
			maxConcurrent: 1,
			baseDelayMs: 5,
		});
		sandbox.startCampaign({
			count: 1,
			channel: 'sms',
			url: receiver.url,
			timeScale: 0,
			failedShare: 0,
		});
		await waitUntil(() => sandbox.webhookSummary().delivered === 2, 'both answered');
		expect(receiver.received[1].receivedAt - receiver.answeredAt[0]).toBeLessThan(900);
	});

	it('posts up to maxEvents per POST as a JSON array the trigger parses and verifies', async () => {
		const { sandbox, receiver } = await start(undefined, {
			batch: { maxEvents: 10, lingerMs: 30 },
		});
		const campaign = sandbox.startCampaign({
			count: 45,
			url: receiver.url,
			timeScale: 0,
			failedShare: 0.2,
			seed: 8,
		});
		await waitUntil(
			() => sandbox.webhookSummary().delivered === campaign.expectedEvents,
			'all answered',
		);

		const sizes = receiver.received.map((delivery) => delivery.events.length);
		expect(Math.max(...sizes)).toBe(10);
		expect(sizes.reduce((total, size) => total + size, 0)).toBe(campaign.expectedEvents);
		expect(receiver.received.length).toBeLessThan(campaign.expectedEvents / 3);
		for (const delivery of receiver.received) {
			const rawBody = Buffer.from(delivery.rawBody);
			expect(JSON.parse(delivery.rawBody)).toEqual(expect.any(Array));
			expect(
				verifySignature({
					signingSecret: sandbox.signingSecret,
					signatureHeader: delivery.headers['x-messaging-signature'] as string,
					timestampHeader: delivery.headers['x-messaging-timestamp'] as string,
					rawBody,
					nowSeconds: Math.floor(Date.now() / 1000),
					toleranceSeconds: 300,
				}),
			).toEqual({ valid: true });
			expect(
				verifySignature({
					signingSecret: 'whsec_someone_else',
					signatureHeader: delivery.headers['x-messaging-signature'] as string,
					timestampHeader: delivery.headers['x-messaging-timestamp'] as string,
					rawBody,
					nowSeconds: Math.floor(Date.now() / 1000),
					toleranceSeconds: 300,
				}),
			).toEqual({ valid: false, reason: 'invalid_signature' });
			expect(parseDeliveryEvents(rawBody)).toEqual({ events: delivery.events });
			expect(delivery.headers['x-messaging-event-id']).toBeUndefined();
		}

		const order = new Map<string, string[]>();
		for (const event of receiver.received.flatMap((delivery) => delivery.events))
			order.set(event.message_id, [...(order.get(event.message_id) ?? []), event.status]);
		expect(
			[...order.values()].every((statuses) =>
				['sent delivered read', 'sent failed'].includes(statuses.join(' ')),
			),
		).toBe(true);
		const recorded = sandbox.webhookDeliveries();
		expect(recorded).toHaveLength(campaign.expectedEvents);
		expect(
			recorded.every((delivery) => delivery.batchSize! >= 1 && delivery.batchSize! <= 10),
		).toBe(true);
	});

	it('sends a lone event after lingerMs, still as an array', async () => {
		const { sandbox, receiver } = await start(undefined, {
			batch: { maxEvents: 100, lingerMs: 150 },
		});
		sandbox.setWebhookUrl(receiver.url);
		const event = sandbox.simulateInbound('+919833333333');
		const sentAt = Date.now();
		const [delivery] = await receiver.waitFor(1);

		expect(delivery.receivedAt - sentAt).toBeGreaterThanOrEqual(140);
		expect(JSON.parse(delivery.rawBody)).toEqual([event]);
	});

	it('retries a refused batch whole, each event recorded per attempt, and sums up the outcomes', async () => {
		const { sandbox, receiver } = await start((index) => ({ status: index === 0 ? 500 : 200 }), {
			batch: { maxEvents: 50, lingerMs: 20 },
			baseDelayMs: 10,
			maxConcurrent: 1,
		});
		sandbox.startCampaign({
			count: 4,
			channel: 'sms',
			url: receiver.url,
			timeScale: 0,
			failedShare: 0,
		});
		await waitUntil(() => sandbox.webhookSummary().delivered === 8, 'all answered');

		expect(receiver.received[1].rawBody).toBe(receiver.received[0].rawBody);
		const firstBatch = receiver.received[0].events.map((event) => event.event_id);
		const attempts = sandbox.webhookDeliveries().filter((d) => firstBatch.includes(d.eventId));
		expect(attempts.map((d) => [d.attempt, d.status, d.batchSize])).toEqual([
			...firstBatch.map(() => [1, 500, firstBatch.length]),
			...firstBatch.map(() => [2, 200, firstBatch.length]),
		]);
		expect(sandbox.webhookSummary()).toEqual({
			events: 8,
			delivered: 8,
			deliveredAfterAttempts: { '2': firstBatch.length, '1': 8 - firstBatch.length },
			pending: 0,
			gaveUp: 0,
			posts: receiver.received.length,
			postsByHttpStatus: { '500': 1, '200': receiver.received.length - 1 },
			deliveredByEventStatus: { sent: 4, delivered: 4 },
			inFlight: 0,
			maxInFlight: 1,
		});
	});

	it('counts events given up, pending and in flight', async () => {
		let holdReads = true;
		const { sandbox, receiver } = await start(
			(_, delivery) =>
				delivery.event.status === 'read'
					? holdReads
						? { status: 200, delayMs: 300 }
						: { status: 200 }
					: { status: delivery.event.status === 'delivered' ? 410 : 200 },
			{ maxAttempts: 2, baseDelayMs: 5 },
		);
		const campaign = sandbox.startCampaign({
			count: 5,
			url: receiver.url,
			timeScale: 0,
			failedShare: 0,
		});
		// Delivered events are refused twice, then given up; their message's read event follows.
		await waitUntil(
			() => receiver.received.filter((d) => d.event.status === 'read').length === 5,
			'the five reads are held',
		);
		expect(sandbox.webhookSummary()).toMatchObject({
			events: 15,
			delivered: 5,
			gaveUp: 5,
			pending: 5,
			inFlight: 5,
		});
		holdReads = false;
		await waitUntil(() => sandbox.webhookSummary().pending === 0, 'the reads are answered');
		expect(sandbox.webhookSummary()).toMatchObject({
			events: campaign.expectedEvents,
			delivered: 10,
			deliveredAfterAttempts: { '1': 10 },
			gaveUp: 5,
			posts: 20,
			postsByHttpStatus: { '200': 10, '410': 10 },
			deliveredByEventStatus: { sent: 5, read: 5 },
		});
		expect(receiver.received).toHaveLength(20);
	});

	it('reads the summary and changes the webhook settings over HTTP', async () => {
		const { sandbox } = await start(undefined, {});
		const summary = await fetch(`${sandbox.url}/__admin/webhook-summary`);
		expect(await summary.json()).toMatchObject({ events: 0, pending: 0, maxInFlight: 0 });
		const put = (webhooks: unknown) =>
			fetch(`${sandbox.url}/__admin/config`, {
				method: 'PUT',
				headers: { 'Content-Type': 'application/json' },
				body: JSON.stringify({ webhooks }),
			});
		expect((await put({ maxConcurrent: 5, batch: { maxEvents: 20, lingerMs: 100 } })).status).toBe(
			204,
		);
		expect((await put({ batch: null })).status).toBe(204);
		expect((await put({ maxConcurrent: 0 })).status).toBe(400);
		const typo = await put({ maxConcurent: 5 });
		expect(typo.status).toBe(400);
		expect(await typo.text()).toMatch(/Unknown webhooks setting maxConcurent/);
		expect((await put({ batch: { maxEvents: 0, lingerMs: 1 } })).status).toBe(400);
	});
});
