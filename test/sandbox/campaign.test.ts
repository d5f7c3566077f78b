import { startSandbox, type CampaignStarted, type Sandbox } from '../../sandbox';
import { startWebhookReceiver, waitUntil, type WebhookReceiver } from './webhook-receiver';

async function admin(sandbox: Sandbox, method: string, path: string, body?: unknown) {
	const response = await fetch(`${sandbox.url}/__admin${path}`, {
		method,
		headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	return { status: response.status, body: (await response.json()) as unknown };
}

function statusesByMessage(receiver: WebhookReceiver): Map<string, string[]> {
	const byMessage = new Map<string, string[]>();
	for (const { event } of receiver.received.flatMap((delivery) =>
		delivery.events.map((one) => ({ event: one })),
	))
		byMessage.set(event.message_id, [...(byMessage.get(event.message_id) ?? []), event.status]);
	return byMessage;
}

describe('campaign workload', () => {
	let sandbox: Sandbox;
	let receiver: WebhookReceiver;

	beforeEach(async () => {
		receiver = await startWebhookReceiver();
		sandbox = await startSandbox({ lifecycle: null });
	});
	afterEach(async () => {
		await sandbox.close();
		await receiver.close();
	});

	it('accepts N WhatsApp messages over HTTP and posts every event, in order per message, a share failed', async () => {
		const started = await admin(sandbox, 'POST', '/campaign', {
			count: 300,
			url: receiver.url,
			failedShare: 0.1,
			timeScale: 0.02,
			perSecond: 2000,
			seed: 11,
		});
		expect(started.status).toBe(201);
		const campaign = started.body as CampaignStarted;
		expect(campaign).toEqual({
			campaignId: expect.stringMatching(/^cmp_[0-9A-Z]{26}$/),
			count: 300,
			channel: 'whatsapp',
			url: receiver.url,
			seed: 11,
			failed: expect.any(Number),
			expectedEvents: 3 * 300 - campaign.failed,
			acceptingForMs: 3,
		});
		expect(campaign.failed).toBeGreaterThan(15);
		expect(campaign.failed).toBeLessThan(45);

		await waitUntil(
			() => sandbox.webhookSummary().delivered === campaign.expectedEvents,
			'every campaign event is answered',
			20_000,
		);

		const byMessage = statusesByMessage(receiver);
		expect(byMessage.size).toBe(300);
		const shapes = [...byMessage.values()].map((statuses) => statuses.join(' '));
		expect(shapes.filter((shape) => shape === 'sent failed')).toHaveLength(campaign.failed);
		expect(shapes.filter((shape) => shape === 'sent delivered read')).toHaveLength(
			300 - campaign.failed,
		);
		const failures = receiver.received.filter((delivery) => delivery.event.status === 'failed');
		expect(failures.every((delivery) => typeof delivery.event.error?.code === 'string')).toBe(true);

		const messages = sandbox.messages();
		expect(messages).toHaveLength(300);
		expect(new Set(messages.map((message) => message.to)).size).toBe(300);
		expect(messages.every((message) => message.fields.campaign === campaign.campaignId)).toBe(true);
	});

	it('spreads the events over time instead of posting them all at once', async () => {
		const campaign = sandbox.startCampaign({
			count: 200,
			url: receiver.url,
			failedShare: 0,
			timeScale: 0.03,
			perSecond: 1000,
			seed: 5,
		});
		await waitUntil(
			() => sandbox.webhookSummary().delivered === campaign.expectedEvents,
			'every campaign event is answered',
			30_000,
		);

		// Timed by when each status happened (the event's timestamp), not when its POST arrived: on a loaded machine
		// the dispatcher's backlog delays the early events' posts and squeezes the gaps between arrivals.
		const happenedAt = (delivery: (typeof receiver.received)[number]) =>
			Date.parse(delivery.event.timestamp);
		const first = Math.min(...receiver.received.map(happenedAt));
		const offsets = (status: string) =>
			receiver.received
				.filter((delivery) => delivery.event.status === status)
				.map((delivery) => happenedAt(delivery) - first)
				.sort((a, b) => a - b);
		const median = (values: number[]) => values[Math.floor(values.length / 2)];
		// At 0.03 × real time: sent within 30-90 ms of acceptance, delivered ~90 ms later, read ~300 ms later.
		expect(median(offsets('delivered'))).toBeGreaterThan(median(offsets('sent')) + 30);
		expect(median(offsets('read'))).toBeGreaterThan(median(offsets('delivered')) + 120);
		const read = offsets('read');
		expect(read[read.length - 1] - read[0]).toBeGreaterThan(300);
		const buckets = new Set(receiver.received.map((d) => Math.floor((happenedAt(d) - first) / 50)));
		expect(buckets.size).toBeGreaterThan(10);
	});

	it('accepts at the campaign pace', async () => {
		const campaign = sandbox.startCampaign({
			count: 30,
			url: receiver.url,
			perSecond: 100,
			timeScale: 1,
		});
		expect(campaign.acceptingForMs).toBe(290);
		const startedAt = Date.now();
		await waitUntil(() => sandbox.messages().length === 30, 'all 30 messages are accepted', 5000);
		expect(Date.now() - startedAt).toBeGreaterThanOrEqual(280);
		const accepted = sandbox.messages().map((message) => message.acceptedAt);
		expect(accepted[29] - accepted[0]).toBeGreaterThanOrEqual(280);
	});

	it('replays one seed: the same recipients fail and the same events come', async () => {
		const run = async () => {
			const before = sandbox.webhookSummary().delivered;
			const campaign = sandbox.startCampaign({
				count: 100,
				url: receiver.url,
				failedShare: 0.3,
				timeScale: 0,
				seed: 2026,
			});
			await waitUntil(
				() => sandbox.webhookSummary().delivered === before + campaign.expectedEvents,
				'the campaign events are answered',
				10_000,
			);
			return {
				campaign,
				failedRecipients: sandbox
					.messages()
					.filter((message) => message.fields.campaign === campaign.campaignId)
					.filter((message) => message.status === 'failed')
					.map((message) => message.to),
			};
		};
		const first = await run();
		const second = await run();

		expect(second.campaign.failed).toBe(first.campaign.failed);
		expect(second.campaign.expectedEvents).toBe(first.campaign.expectedEvents);
		expect(second.failedRecipients).toEqual(first.failedRecipients);
		expect(first.failedRecipients).toHaveLength(first.campaign.failed);
	});

	it('sends SMS campaigns to the account webhook when no url is given', async () => {
		sandbox.setWebhookUrl(receiver.url);
		const campaign = sandbox.startCampaign({
			count: 10,
			channel: 'sms',
			timeScale: 0,
			failedShare: 0,
		});
		expect(campaign).toMatchObject({ channel: 'sms', url: receiver.url, expectedEvents: 20 });
		await waitUntil(() => sandbox.webhookSummary().delivered === 20, 'every event is answered');
		expect(sandbox.webhookSummary().deliveredByEventStatus).toEqual({ sent: 10, delivered: 10 });
	});

	it('refuses a campaign it cannot run, naming the field', async () => {
		const refused = async (body: unknown) => {
			const answer = await admin(sandbox, 'POST', '/campaign', body);
			expect(answer.status).toBe(400);
			return (answer.body as { error: { message: string } }).error.message;
		};
		expect(await refused({ count: 5 })).toMatch(/url/);
		expect(await refused({ count: 0, url: receiver.url })).toMatch(/'count'/);
		expect(await refused({ count: 100_001, url: receiver.url })).toMatch(/'count'/);
		expect(await refused({ count: 5, url: 'ftp://x' })).toMatch(/http/);
		expect(await refused({ count: 5, url: receiver.url, channel: 'fax' })).toMatch(/'channel'/);
		expect(await refused({ count: 5, url: receiver.url, failedShare: 1.5 })).toMatch(
			/'failedShare'/,
		);
		expect(await refused({ count: 5, url: receiver.url, perSecond: 0 })).toMatch(/'perSecond'/);
		expect(sandbox.messages()).toEqual([]);
	});
});
