import { EventIdMemory } from '../../../nodes/MessagingTrigger/deduplication';
import { START_SLOTS } from '../../../nodes/MessagingTrigger/startSlots';
import { waitUntil } from '../../sandbox/webhook-receiver';
import { deliveryEvent, nowSeconds, postDelivery, sign } from './support/signedDelivery';
import { startTriggerHarness, type TriggerHarness } from './support/triggerHarness';

const SECRET = 'whsec_trigger_test_3f9a';

describe("Messaging Trigger webhook, over real HTTP with n8n-core's WebhookContext", () => {
	let harness: TriggerHarness;

	afterEach(async () => {
		await harness.close();
	});

	async function start(parameters = {}): Promise<void> {
		harness = await startTriggerHarness({ signingSecret: SECRET, parameters });
	}

	function warnings(): string[] {
		return harness.logs.filter((entry) => entry.level === 'warn').map((entry) => entry.message);
	}

	function expectRefusal(
		result: { status: number; body: unknown },
		status: number,
		code: string,
	): void {
		expect(result.status).toBe(status);
		expect(result.body).toEqual({
			error: expect.objectContaining({ code, message: expect.any(String) }),
		});
		expect(harness.runs).toHaveLength(0);
		expect(warnings()).toEqual([expect.stringContaining(`${status} ${code}`)]);
		expect(harness.logs.find((entry) => entry.level === 'warn')?.meta).toEqual(
			expect.objectContaining({ reason: code, statusCode: status, workflowId: harness.workflowId }),
		);
	}

	it('starts one execution whose item is the signed event, exactly as sent', async () => {
		await start();
		const event = deliveryEvent({ status: 'delivered' });

		const result = await postDelivery(harness.url, JSON.stringify(event), { secret: SECRET });

		expect(result).toEqual({
			status: 200,
			body: { received: 1, accepted: 1, duplicates: 0, filteredOut: 0 },
		});
		expect(harness.runs).toEqual([[{ json: event }]]);
		expect(warnings()).toEqual([]);
	});

	it('turns a batch into one item per event, in order', async () => {
		await start();
		const events = [deliveryEvent({ status: 'sent' }), deliveryEvent({ status: 'delivered' })];

		const result = await postDelivery(harness.url, JSON.stringify(events), { secret: SECRET });

		expect(result.status).toBe(200);
		expect(harness.runs).toEqual([events.map((event) => ({ json: event }))]);
	});

	it('refuses a body changed after signing with 401', async () => {
		await start();
		const signed = JSON.stringify(deliveryEvent({ status: 'failed' }));
		const tampered = signed.replace('"failed"', '"delivered"');

		const result = await postDelivery(harness.url, tampered, {
			secret: SECRET,
			signedBody: signed,
		});

		expectRefusal(result, 401, 'invalid_signature');
	});

	it('refuses a body signed with another secret with 401 and never logs either secret', async () => {
		await start();
		const otherSecret = 'whsec_someone_else';

		const result = await postDelivery(harness.url, JSON.stringify(deliveryEvent()), {
			secret: otherSecret,
		});

		expectRefusal(result, 401, 'invalid_signature');
		const everythingLogged = JSON.stringify(harness.logs);
		expect(everythingLogged).not.toContain(SECRET);
		expect(everythingLogged).not.toContain(otherSecret);
	});

	it('refuses a correctly signed but stale delivery (a replay) with 401', async () => {
		await start();

		const result = await postDelivery(harness.url, JSON.stringify(deliveryEvent()), {
			secret: SECRET,
			timestamp: nowSeconds() - 301,
		});

		expectRefusal(result, 401, 'stale_timestamp');
	});

	it('refuses a timestamp further in the future than the tolerance with 401', async () => {
		await start();

		const result = await postDelivery(harness.url, JSON.stringify(deliveryEvent()), {
			secret: SECRET,
			timestamp: nowSeconds() + 301,
		});

		expectRefusal(result, 401, 'stale_timestamp');
	});

	it('honours a custom timestamp tolerance', async () => {
		await start({ options: { timestampToleranceSeconds: 30 } });

		const stale = await postDelivery(harness.url, JSON.stringify(deliveryEvent()), {
			secret: SECRET,
			timestamp: nowSeconds() - 60,
		});
		expect(stale.status).toBe(401);

		const fresh = await postDelivery(harness.url, JSON.stringify(deliveryEvent()), {
			secret: SECRET,
			timestamp: nowSeconds() - 20,
		});
		expect(fresh.status).toBe(200);
		expect(harness.runs).toHaveLength(1);
	});

	it.each([
		['x-messaging-signature', 'missing_signature'],
		['x-messaging-timestamp', 'missing_timestamp'],
	])('refuses a delivery without the %s header with 401', async (header, code) => {
		await start();

		const result = await postDelivery(harness.url, JSON.stringify(deliveryEvent()), {
			secret: SECRET,
			omitHeaders: [header],
		});

		expectRefusal(result, 401, code);
	});

	it.each([
		['no version prefix', (valid: string) => valid.slice('v1='.length)],
		['an unknown version', (valid: string) => valid.replace('v1=', 'v2=')],
		['a truncated digest', (valid: string) => valid.slice(0, -2)],
		['non-hex characters', (valid: string) => `${valid.slice(0, -1)}z`],
	])('refuses a signature header with %s with 401', async (_case, mangle) => {
		await start();
		const body = JSON.stringify(deliveryEvent());
		const timestamp = nowSeconds();

		const result = await postDelivery(harness.url, body, {
			timestamp,
			headers: { 'x-messaging-signature': mangle(sign(SECRET, timestamp, body)) },
		});

		expectRefusal(result, 401, 'malformed_signature');
	});

	it('refuses a timestamp that is not Unix seconds with 401', async () => {
		await start();
		const body = JSON.stringify(deliveryEvent());
		const timestamp = new Date().toISOString();

		const result = await postDelivery(harness.url, body, { secret: SECRET, timestamp });

		expectRefusal(result, 401, 'malformed_timestamp');
	});

	it.each([
		['text/plain', 'delivered, honest'],
		['application/json', '{"event_id": "evt_1",'],
	])('answers a signed body that is not JSON (%s) with 400', async (contentType, body) => {
		await start();

		const result = await postDelivery(harness.url, body, { secret: SECRET, contentType });

		expectRefusal(result, 400, 'invalid_json');
	});

	it('refuses a multipart body, which n8n does not keep raw, as unsigned with 401', async () => {
		await start();
		const boundary = 'xyz';
		const body = `--${boundary}\r\nContent-Disposition: form-data; name="event"\r\n\r\n${JSON.stringify(deliveryEvent())}\r\n--${boundary}--\r\n`;

		const result = await postDelivery(harness.url, body, {
			secret: SECRET,
			contentType: `multipart/form-data; boundary=${boundary}`,
		});

		expectRefusal(result, 401, 'invalid_signature');
	});

	it('answers a signed event without a status with 400 naming the field and the event', async () => {
		await start();
		const events = [deliveryEvent(), { ...deliveryEvent(), status: undefined }];

		const result = await postDelivery(harness.url, JSON.stringify(events), { secret: SECRET });

		expectRefusal(result, 400, 'invalid_event');
		expect(result.body).toEqual({
			error: expect.objectContaining({
				field: 'status',
				message: expect.stringContaining('Event 1'),
			}),
		});
	});

	it('answers a body over 256 KiB with 413, before even looking at the signature', async () => {
		await start();
		const padding = 'x'.repeat(256 * 1024);
		const body = JSON.stringify({ ...deliveryEvent(), padding });

		const result = await postDelivery(harness.url, body, {
			omitHeaders: ['x-messaging-signature', 'x-messaging-timestamp'],
		});

		expectRefusal(result, 413, 'body_too_large');
	});

	it('acknowledges a repeated event id with 200 and starts no second execution', async () => {
		await start();
		const body = JSON.stringify(deliveryEvent());

		const first = await postDelivery(harness.url, body, { secret: SECRET });
		const retry = await postDelivery(harness.url, body, { secret: SECRET });

		expect(first.status).toBe(200);
		expect(retry).toEqual({
			status: 200,
			body: { received: 1, accepted: 0, duplicates: 1, filteredOut: 0 },
		});
		expect(harness.runs).toHaveLength(1);
		expect(harness.staticData()).toEqual({
			'node:Messaging Trigger': {
				recentEventIds: JSON.stringify([JSON.parse(body).event_id]),
				recentEventIdsStamp: expect.any(String),
			},
		});
	});

	it('runs one execution when deliveries of one event overlap, and answers the others as duplicates', async () => {
		await start();
		const body = JSON.stringify(deliveryEvent());

		const results = await Promise.all(
			Array.from({ length: 8 }, () => postDelivery(harness.url, body, { secret: SECRET })),
		);

		expect(results.map((result) => result.status)).toEqual(results.map(() => 200));
		expect(
			results.filter((result) => (result.body as { accepted: number }).accepted === 1),
		).toHaveLength(1);
		expect(harness.runs).toHaveLength(1);
	});

	it('runs the retry of an event whose execution n8n could not create, after answering that delivery 500', async () => {
		await start();
		const body = JSON.stringify(deliveryEvent());
		harness.failNextHandOffs(1);

		const first = await postDelivery(harness.url, body, { secret: SECRET });
		const retry = await postDelivery(harness.url, body, { secret: SECRET });
		const again = await postDelivery(harness.url, body, { secret: SECRET });

		expect([first.status, retry.status, again.status]).toEqual([500, 200, 200]);
		expect(retry.body).toEqual({ received: 1, accepted: 1, duplicates: 0, filteredOut: 0 });
		expect(again.body).toEqual({ received: 1, accepted: 0, duplicates: 1, filteredOut: 0 });
		expect(harness.runs).toHaveLength(1);
	});

	it('answers a retry that overlaps its first delivery only once n8n answered that one: 503 when it failed', async () => {
		await start();
		const body = JSON.stringify(deliveryEvent());
		harness.failNextHandOffs(1, 400);

		const first = postDelivery(harness.url, body, { secret: SECRET });
		await new Promise((resolve) => setTimeout(resolve, 100));
		const overlapping = await postDelivery(harness.url, body, { secret: SECRET });
		const again = await postDelivery(harness.url, body, { secret: SECRET });

		expect((await first).status).toBe(500);
		expect(overlapping.status).toBe(503);
		expect(overlapping.body).toMatchObject({ error: { code: 'execution_not_started' } });
		expect(again.body).toEqual({ received: 1, accepted: 1, duplicates: 0, filteredOut: 0 });
		expect(harness.runs).toHaveLength(1);
	});

	it('answers a retry that overlaps its first delivery 200 as a duplicate once n8n started that one', async () => {
		await start();
		const body = JSON.stringify(deliveryEvent());
		harness.delaySaves((delivery) => (delivery === 0 ? 400 : 0));

		const sentAt = Date.now();
		const first = postDelivery(harness.url, body, { secret: SECRET });
		await new Promise((resolve) => setTimeout(resolve, 100));
		const overlapping = await postDelivery(harness.url, body, { secret: SECRET });
		const overlappingAnsweredAfter = Date.now() - sentAt;

		expect((await first).status).toBe(200);
		expect(overlapping.body).toEqual({ received: 1, accepted: 0, duplicates: 1, filteredOut: 0 });
		expect(overlappingAnsweredAfter).toBeGreaterThanOrEqual(400);
		expect(harness.runs).toHaveLength(1);
	});

	it('drops a retry of an event run in another n8n process, once that process saved its ids', async () => {
		await start();
		const body = JSON.stringify(deliveryEvent());
		const elsewhere = new EventIdMemory();
		elsewhere.claim(JSON.parse(body).event_id);
		harness.setStaticData({
			'node:Messaging Trigger': JSON.parse(JSON.stringify(elsewhere.newSave().fields)),
		});

		const retry = await postDelivery(harness.url, body, { secret: SECRET });

		expect(retry.body).toEqual({ received: 1, accepted: 0, duplicates: 1, filteredOut: 0 });
		expect(harness.runs).toHaveLength(0);
	});

	it('saves on every delivery that accepted an event, so a retry anywhere finds it; duplicates save nothing', async () => {
		await start();
		const bodies = Array.from({ length: 30 }, () => JSON.stringify(deliveryEvent()));
		for (const body of bodies) await postDelivery(harness.url, body, { secret: SECRET });
		await postDelivery(harness.url, bodies[0], { secret: SECRET });

		expect(harness.runs).toHaveLength(30);
		expect(harness.staticDataSaves()).toBe(30);
		const saved = harness.staticData()['node:Messaging Trigger'] as { recentEventIds: string };
		expect(JSON.parse(saved.recentEventIds)).toEqual(
			bodies.map((body) => (JSON.parse(body) as { event_id: string }).event_id),
		);
	});

	it('hands n8n START_SLOTS deliveries at a time while their saves are pending; the rest wait, then each runs once', async () => {
		await start();
		let saveNow: () => void = () => undefined;
		const saving = new Promise<void>((resolve) => (saveNow = resolve));
		harness.delaySaves(() => saving);
		const events = Array.from({ length: START_SLOTS * 3 }, () => deliveryEvent());
		let answered = 0;
		const answering = events.map((event) =>
			postDelivery(harness.url, JSON.stringify(event), { secret: SECRET }).finally(
				() => answered++,
			),
		);

		await waitUntil(() => harness.webhookCalls() === events.length, 'every delivery arrived');
		expect(harness.runs).toHaveLength(START_SLOTS);
		expect(harness.requestsInWebhook()).toBe(events.length - START_SLOTS);
		expect(answered).toBe(0);

		saveNow();
		const results = await Promise.all(answering);
		expect(results.map((result) => result.status)).toEqual(events.map(() => 200));
		const ran = harness.runs.flat().map((item) => item.json.event_id as string);
		expect(ran.sort()).toEqual(events.map((event) => event.event_id).sort());
	});

	it('runs a repeated event id again when Drop Duplicate Events is off', async () => {
		await start({ options: { dropDuplicateEvents: false } });
		const body = JSON.stringify(deliveryEvent());

		await postDelivery(harness.url, body, { secret: SECRET });
		await postDelivery(harness.url, body, { secret: SECRET });

		expect(harness.runs).toHaveLength(2);
	});

	it('keeps only the new events of a batch that repeats one already run', async () => {
		await start();
		const seen = deliveryEvent();
		await postDelivery(harness.url, JSON.stringify(seen), { secret: SECRET });
		const fresh = deliveryEvent({ status: 'read', channel: 'whatsapp' });

		const result = await postDelivery(harness.url, JSON.stringify([seen, fresh]), {
			secret: SECRET,
		});

		expect(result.body).toEqual({ received: 2, accepted: 1, duplicates: 1, filteredOut: 0 });
		expect(harness.runs).toEqual([[{ json: seen }], [{ json: fresh }]]);
	});

	it('runs an event id repeated within one batch only once', async () => {
		await start();
		const event = deliveryEvent();

		const result = await postDelivery(harness.url, JSON.stringify([event, event]), {
			secret: SECRET,
		});

		expect(result.body).toEqual({ received: 2, accepted: 1, duplicates: 1, filteredOut: 0 });
		expect(harness.runs).toEqual([[{ json: event }]]);
	});

	it('answers 500 and starts nothing when the credential holds no signing secret', async () => {
		harness = await startTriggerHarness({ signingSecret: '' });

		const result = await postDelivery(harness.url, JSON.stringify(deliveryEvent()), { secret: '' });

		expectRefusal(result, 500, 'signing_secret_missing');
	});

	it('acknowledges a status outside the Statuses filter with 200 and starts nothing', async () => {
		await start({ statuses: ['delivered', 'failed'] });

		const result = await postDelivery(
			harness.url,
			JSON.stringify(deliveryEvent({ status: 'sent' })),
			{
				secret: SECRET,
			},
		);

		expect(result).toEqual({
			status: 200,
			body: { received: 1, accepted: 0, duplicates: 0, filteredOut: 1 },
		});
		expect(harness.runs).toHaveLength(0);
		expect(warnings()).toEqual([]);
	});

	it('acknowledges a channel outside the Channels filter with 200 and starts nothing', async () => {
		await start({ channels: ['whatsapp'] });

		const result = await postDelivery(
			harness.url,
			JSON.stringify(deliveryEvent({ channel: 'sms' })),
			{
				secret: SECRET,
			},
		);

		expect(result.body).toEqual({ received: 1, accepted: 0, duplicates: 0, filteredOut: 1 });
		expect(harness.runs).toHaveLength(0);
	});

	it('passes an event that matches both filters', async () => {
		await start({ channels: ['sms'], statuses: ['failed', 'undelivered'] });
		const event = deliveryEvent({
			status: 'failed',
			error: { code: 'recipient_unreachable', message: 'The handset is unreachable.' },
		});

		await postDelivery(harness.url, JSON.stringify(event), { secret: SECRET });

		expect(harness.runs).toEqual([[{ json: event }]]);
	});

	it('does not spend deduplication memory on a filtered-out event', async () => {
		await start({ statuses: ['delivered'] });
		const body = JSON.stringify(deliveryEvent({ status: 'sent' }));

		await postDelivery(harness.url, body, { secret: SECRET });

		expect(harness.staticData()).toEqual({});
	});
});
