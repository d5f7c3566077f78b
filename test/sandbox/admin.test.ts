import {
	createManualClock,
	startSandbox,
	type MessageRecord,
	type RecordedRequest,
	type Sandbox,
} from '../../sandbox';
import { OPEN_SESSION_NUMBER, post, smsFields } from './http-client';
import { installSandboxTime, tracked, type SandboxTime } from './sandbox-time';
import { startWebhookReceiver, waitUntil } from './webhook-receiver';

async function admin(sandbox: Sandbox, method: string, path: string, body?: unknown) {
	const response = await fetch(`${sandbox.url}/__admin${path}`, {
		method,
		headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
}

const session = (sandbox: Sandbox, to: string) =>
	post(sandbox, '/v1/whatsapp/send', { to, type: 'session', text: 'hi' });

describe('admin endpoints', () => {
	let sandbox: Sandbox;
	beforeEach(async () => {
		sandbox = await startSandbox({
			lifecycle: null,
			clock: createManualClock(Date.UTC(2026, 10, 22, 9)),
		});
	});
	afterEach(() => sandbox.close());

	it('reports health with the sandbox time', async () => {
		expect(await admin(sandbox, 'GET', '/health')).toEqual({
			status: 200,
			body: { status: 'ok', now: '2026-11-22T09:00:00.000Z' },
		});
	});

	it('lists and clears recorded API requests, without recording admin calls', async () => {
		await post(sandbox, '/v1/sms/send', smsFields());
		const listed = await admin(sandbox, 'GET', '/requests');
		expect(listed.status).toBe(200);
		const requests = listed.body as RecordedRequest[];
		expect(requests).toHaveLength(1);
		expect(requests[0]).toMatchObject({ path: '/v1/sms/send', response: { status: 200 } });
		expect(requests[0].headers.authorization).toBe(`Bearer ${sandbox.apiKey}`);

		expect((await admin(sandbox, 'DELETE', '/requests')).status).toBe(204);
		expect((await admin(sandbox, 'GET', '/requests')).body).toEqual([]);
	});

	it('lists accepted messages', async () => {
		const reply = await post(sandbox, '/v1/sms/send', smsFields());
		const messages = (await admin(sandbox, 'GET', '/messages')).body as MessageRecord[];
		expect(messages.map((message) => message.id)).toEqual([
			(reply.body as { message_id: string }).message_id,
		]);
	});

	it('forgets accepted messages and the Idempotency-Keys that would replay them', async () => {
		const headers = { 'Idempotency-Key': 'order-1' };
		const first = await post(sandbox, '/v1/sms/send', smsFields(), { headers });
		expect((await admin(sandbox, 'DELETE', '/messages')).status).toBe(204);
		expect((await admin(sandbox, 'GET', '/messages')).body).toEqual([]);

		const again = await post(sandbox, '/v1/sms/send', smsFields(), { headers });
		const id = (reply: typeof first) => (reply.body as { message_id: string }).message_id;
		expect(again.status).toBe(200);
		expect(id(again)).not.toBe(id(first));
		const messages = (await admin(sandbox, 'GET', '/messages')).body as MessageRecord[];
		expect(messages.map((message) => message.id)).toEqual([id(again)]);
	});

	it('opens a session window with an inbound message and closes it when the clock moves past 24 hours', async () => {
		const number = '+919833333333';
		expect((await session(sandbox, number)).status).toBe(422);
		expect(await admin(sandbox, 'POST', '/inbound', { from: number })).toEqual({
			status: 200,
			body: {
				from: number,
				event: expect.objectContaining({ type: 'message.inbound', from: number, text: 'Hi' }),
			},
		});
		expect((await session(sandbox, number)).status).toBe(200);

		const advanced = await admin(sandbox, 'POST', '/clock/advance', { ms: 24 * 60 * 60 * 1000 });
		expect(advanced).toEqual({ status: 200, body: { now: '2026-11-23T09:00:00.000Z' } });
		expect((await session(sandbox, number)).status).toBe(422);
		expect((await session(sandbox, OPEN_SESSION_NUMBER)).status).toBe(422);
	});

	it('sets the account webhook and the lifecycle, and lists delivery attempts', async () => {
		const receiver = await startWebhookReceiver();
		try {
			expect((await admin(sandbox, 'PUT', '/webhook', { url: receiver.url })).status).toBe(200);
			expect(
				(await admin(sandbox, 'PUT', '/config', { lifecycle: { stepDelayMs: 5 } })).status,
			).toBe(204);
			await post(sandbox, '/v1/sms/send', smsFields());
			await receiver.waitFor(2);
			await waitUntil(() => sandbox.webhookDeliveries().length === 2, 'both attempts are recorded');
			expect((await admin(sandbox, 'GET', '/webhook-deliveries')).body).toEqual([
				expect.objectContaining({
					attempt: 1,
					status: 200,
					messageStatus: 'sent',
					url: receiver.url,
				}),
				expect.objectContaining({
					attempt: 1,
					status: 200,
					messageStatus: 'delivered',
					url: receiver.url,
				}),
			]);
			expect((await admin(sandbox, 'PUT', '/webhook', { url: null })).status).toBe(200);
		} finally {
			await receiver.close();
		}
	});

	describe('in sandbox time, so the rate limit refills and latency passes only when the test says', () => {
		let time: SandboxTime;
		beforeEach(() => {
			time = installSandboxTime();
		});
		afterEach(() => time.restore());

		it('sets the rate limit and latency', async () => {
			expect(
				(
					await admin(sandbox, 'PUT', '/config', {
						rateLimit: { perSecond: 1, burst: 1 },
						latency: { fixedMs: 0 },
					})
				).status,
			).toBe(204);
			expect((await post(sandbox, '/v1/sms/send', smsFields())).status).toBe(200);
			expect((await post(sandbox, '/v1/sms/send', smsFields())).status).toBe(429);
			expect((await admin(sandbox, 'PUT', '/config', { rateLimit: null })).status).toBe(204);
			expect((await post(sandbox, '/v1/sms/send', smsFields())).status).toBe(200);
		});

		it('applies nothing of a config patch with one bad part', async () => {
			const reply = await admin(sandbox, 'PUT', '/config', {
				latency: { fixedMs: 500 },
				rateLimit: { perSecond: -1 },
			});
			expect(reply.status).toBe(400);
			// With the 500 ms latency applied the answer would wait on a sandbox delay, which only the test can run.
			const send = tracked(post(sandbox, '/v1/sms/send', smsFields()));
			await time.untilPending(1, send.settled);
			expect(time.pendingDelays()).toEqual([]);
			expect((await send.promise).status).toBe(200);
			expect(time.requestedDelays()).toEqual([]);
		});
	});

	it('adds, lists and clears fault rules', async () => {
		const added = await admin(sandbox, 'POST', '/faults', {
			match: { times: 1 },
			action: { status: 503, bodyKind: 'text' },
		});
		expect(added).toEqual({ status: 201, body: { id: expect.stringMatching(/^fault_/) } });
		expect((await admin(sandbox, 'GET', '/faults')).body).toEqual([
			expect.objectContaining({ remaining: 1 }),
		]);
		expect((await post(sandbox, '/v1/sms/send', smsFields())).status).toBe(503);

		await admin(sandbox, 'POST', '/faults', { action: { status: 500, bodyKind: 'json' } });
		expect((await admin(sandbox, 'DELETE', '/faults')).status).toBe(204);
		expect((await post(sandbox, '/v1/sms/send', smsFields())).status).toBe(200);
	});

	it.each([
		['POST', '/inbound', {}, /'from' is required/],
		['POST', '/clock/advance', { ms: -5 }, /'ms'/],
		['PUT', '/webhook', { url: 'not a url' }, /absolute URL/],
		['PUT', '/config', { speed: 3 }, /Unknown config speed/],
		['PUT', '/config', { rateLimit: { perSecond: 0 } }, /perSecond/],
		['POST', '/faults', { action: { reset: 'sideways' } }, /reset/],
	])('answers 400 with the reason for %s %s %j', async (method, path, body, reason) => {
		const reply = await admin(sandbox, method, path, body);
		expect(reply.status).toBe(400);
		expect((reply.body as { error: { message: string } }).error.message).toMatch(reason);
	});

	it('answers 400 for a body that is not JSON and 404 for an unknown admin path', async () => {
		const notJson = await fetch(`${sandbox.url}/__admin/inbound`, {
			method: 'POST',
			body: 'from=+91',
		});
		expect(notJson.status).toBe(400);
		expect((await admin(sandbox, 'GET', '/nothing')).status).toBe(404);
	});
});
