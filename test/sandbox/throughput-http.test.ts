import { createManualClock, startSandbox, type Sandbox } from '../../sandbox';
import { SandboxAdmin } from '../../scripts/lib/sandbox-admin';
import { errorOf, post, smsFields, type ApiReply } from './http-client';
import { settle, tracked, useSandboxTime } from './sandbox-time';
import { pause, startWebhookReceiver, waitUntil } from './webhook-receiver';

describe('latency', () => {
	let sandbox: Sandbox;
	const time = useSandboxTime();
	beforeAll(async () => {
		sandbox = await startSandbox({ lifecycle: null });
	});
	afterAll(() => sandbox.close());

	it('waits the fixed latency before answering, and adds up to the jitter', async () => {
		sandbox.configure({ latency: { fixedMs: 120 } });
		const slow = tracked(post(sandbox, '/v1/sms/send', smsFields()));
		await time().untilPending(1);
		expect(time().pendingDelays()).toEqual([120]);
		await time().advance(119);
		await settle();
		expect(slow.settled()).toBe(false);
		await time().advance(1);
		expect((await slow.promise).status).toBe(200);

		sandbox.configure({ latency: { fixedMs: 20, jitterMs: 60 } });
		const jittered = Array.from({ length: 12 }, () => post(sandbox, '/v1/sms/send', smsFields()));
		await time().untilPending(12);
		const delays = time().pendingDelays();
		expect(delays).toHaveLength(12);
		for (const delayMs of delays) {
			expect(delayMs).toBeGreaterThanOrEqual(20);
			expect(delayMs).toBeLessThanOrEqual(80);
		}
		expect(Math.max(...delays) - Math.min(...delays)).toBeGreaterThan(5);
		await time().advance(80);
		expect((await Promise.all(jittered)).map((reply) => reply.status)).toEqual(Array(12).fill(200));

		sandbox.configure({ latency: null });
		const fast = await post(sandbox, '/v1/sms/send', smsFields());
		expect(fast.status).toBe(200);
		expect(time().requestedDelays()).toHaveLength(1 + 12);
	});

	it('refuses a negative latency', () => {
		expect(() => sandbox.configure({ latency: { fixedMs: -1 } })).toThrow(/latency/);
	});
});

/** Rate limits measured in sandbox time: the token buckets refill only when the test advances it. */
describe('rate limit', () => {
	let sandbox: Sandbox;
	const time = useSandboxTime();
	beforeEach(async () => {
		sandbox = await startSandbox({ lifecycle: null, rateLimit: { perSecond: 2, burst: 2 } });
	});
	afterEach(() => sandbox.close());

	it('answers 429 rate_limited with Retry-After once the burst is spent, and accepts nothing for it', async () => {
		const replies = [];
		for (let i = 0; i < 3; i++) replies.push(await post(sandbox, '/v1/sms/send', smsFields()));

		expect(replies.map((reply) => reply.status)).toEqual([200, 200, 429]);
		expect(errorOf(replies[2]).code).toBe('rate_limited');
		expect(replies[2].headers.get('retry-after')).toBe('1');
		expect(sandbox.messages()).toHaveLength(2);
		expect(sandbox.requests().map((request) => request.response.status)).toEqual([200, 200, 429]);
	});

	it('tells every answer after the key check how much of the budget is left, in the RateLimit-* headers', async () => {
		const replies: ApiReply[] = [];
		for (let i = 0; i < 3; i++) replies.push(await post(sandbox, '/v1/sms/send', smsFields()));
		const budget = (reply: ApiReply) =>
			['limit', 'remaining', 'reset', 'policy'].map((name) =>
				reply.headers.get(`ratelimit-${name}`),
			);

		expect(replies.map(budget)).toEqual([
			['2', '1', '1', '2;w=1'],
			['2', '0', '1', '2;w=1'],
			['2', '0', '1', '2;w=1'],
		]);
		const refused = await post(sandbox, '/v1/sms/send', { ...smsFields(), to: 'not a number' });
		expect(refused.headers.get('ratelimit-limit')).toBe('2');
	});

	it('lets the client in again after Retry-After', async () => {
		for (let i = 0; i < 2; i++) await post(sandbox, '/v1/sms/send', smsFields());
		const limited = await post(sandbox, '/v1/sms/send', smsFields());
		expect(limited.status).toBe(429);
		await time().advance(Number(limited.headers.get('retry-after')) * 1000);
		expect((await post(sandbox, '/v1/sms/send', smsFields())).status).toBe(200);
	});

	it('checks the key before the rate: bad keys get 401 and spend no tokens', async () => {
		for (let i = 0; i < 5; i++) {
			expect(
				(await post(sandbox, '/v1/sms/send', smsFields(), { apiKey: 'sk_wrong' })).status,
			).toBe(401);
		}
		expect((await post(sandbox, '/v1/sms/send', smsFields())).status).toBe(200);
	});

	it('never limits a client that sends at exactly the configured rate', async () => {
		sandbox.configure({ rateLimit: { perSecond: 40 } });
		const statuses: number[] = [];
		for (let i = 0; i < 60; i++) {
			if (i > 0) await time().advance(1000 / 40);
			statuses.push((await post(sandbox, '/v1/sms/send', smsFields())).status);
		}
		expect(statuses).toHaveLength(60);
		expect(statuses.filter((status) => status === 429)).toHaveLength(0);
	});

	it('holds a client sending twice the rate to the rate', async () => {
		sandbox.configure({ rateLimit: { perSecond: 20, burst: 1 } });
		const startedAt = time().now();
		const statuses: number[] = [];
		for (let i = 0; i < 30; i++) {
			if (i > 0) await time().advance(25);
			statuses.push((await post(sandbox, '/v1/sms/send', smsFields())).status);
		}
		const elapsedSeconds = (time().now() - startedAt) / 1000;
		const accepted = statuses.filter((status) => status === 200).length;
		expect(accepted).toBeLessThanOrEqual(1 + Math.ceil(20 * elapsedSeconds));
		expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(
			30 - 1 - Math.ceil(20 * elapsedSeconds),
		);
		expect(sandbox.messages()).toHaveLength(accepted);
	});
});

describe('fixed windows of any length, set through the admin API', () => {
	let sandbox: Sandbox;
	const time = useSandboxTime();
	beforeEach(async () => {
		sandbox = await startSandbox({ lifecycle: null });
	});
	afterEach(() => sandbox.close());

	it('accepts the window’s limit, answers 429 with Retry-After until the window ends, then accepts again', async () => {
		await new SandboxAdmin(sandbox.url).setRateLimit({ window: { limit: 2, seconds: 60 } });
		const replies: ApiReply[] = [];
		for (let i = 0; i < 3; i++) {
			replies.push(await post(sandbox, '/v1/sms/send', smsFields()));
			await time().advance(10_000);
		}

		expect(replies.map((reply) => reply.status)).toEqual([200, 200, 429]);
		expect(replies.map((reply) => reply.headers.get('ratelimit-reset'))).toEqual([
			'60',
			'50',
			'40',
		]);
		expect(replies[2].headers.get('retry-after')).toBe('40');
		expect(replies[2].headers.get('ratelimit-policy')).toBe('2;w=60');
		expect(errorOf(replies[2]).message).toContain('may send 2 per 60 s');
		expect(sandbox.messages()).toHaveLength(2);

		await time().advance(30_000);
		const next = await post(sandbox, '/v1/sms/send', smsFields());
		expect(next.status).toBe(200);
		expect(next.headers.get('ratelimit-remaining')).toBe('1');
	});

	it('refuses a window it cannot model, naming the setting', async () => {
		await expect(
			new SandboxAdmin(sandbox.url).setRateLimit({ window: { limit: 2, seconds: 0 } }),
		).rejects.toThrow(/rateLimit\.window must be/);
	});
});

describe('Idempotency-Key', () => {
	let sandbox: Sandbox;
	beforeEach(async () => {
		sandbox = await startSandbox({
			lifecycle: null,
			clock: createManualClock(Date.UTC(2026, 10, 22, 9)),
		});
	});
	afterEach(() => sandbox.close());

	const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });

	it('replays the first acknowledgement for the same key and body, accepting nothing new', async () => {
		const first = await post(sandbox, '/v1/sms/send', smsFields(), withKey('exec-1-item-0'));
		const again = await post(sandbox, '/v1/sms/send', smsFields(), withKey('exec-1-item-0'));
		const reencoded = await post(sandbox, '/v1/sms/send', smsFields(), {
			...withKey('exec-1-item-0'),
			encoding: 'json',
		});

		expect(first.status).toBe(200);
		expect(again).toMatchObject({ status: 200, body: first.body });
		expect(reencoded).toMatchObject({ status: 200, body: first.body });
		expect(first.headers.get('idempotent-replayed')).toBeNull();
		expect(again.headers.get('idempotent-replayed')).toBe('true');
		expect(sandbox.messages()).toHaveLength(1);
		expect(sandbox.messages()[0].idempotencyKey).toBe('exec-1-item-0');
		expect(sandbox.requests()).toHaveLength(3);
	});

	it('set to ignore keys through the admin API, every request with the same key is a new message', async () => {
		const admin = new SandboxAdmin(sandbox.url);
		await admin.configure({ idempotencyKeys: 'ignore' });
		const first = await post(sandbox, '/v1/sms/send', smsFields(), withKey('k-ignored'));
		const again = await post(sandbox, '/v1/sms/send', smsFields(), withKey('k-ignored'));
		expect([first.status, again.status]).toEqual([200, 200]);
		expect(again.body).not.toEqual(first.body);
		expect(again.headers.get('idempotent-replayed')).toBeNull();
		expect(sandbox.messages()).toHaveLength(2);

		await admin.configure({ idempotencyKeys: 'honour' });
		const honoured = await post(sandbox, '/v1/sms/send', smsFields(), withKey('k-honoured'));
		const replayed = await post(sandbox, '/v1/sms/send', smsFields(), withKey('k-honoured'));
		expect(replayed.body).toEqual(honoured.body);
		expect(sandbox.messages()).toHaveLength(3);
		await expect(admin.configure({ idempotencyKeys: 'sometimes' })).rejects.toThrow(
			/idempotencyKeys must be 'honour' or 'ignore'/,
		);
	});

	it('answers 422 idempotency_key_reused for the same key with another body', async () => {
		await post(sandbox, '/v1/sms/send', smsFields(), withKey('k1'));
		const reply = await post(
			sandbox,
			'/v1/sms/send',
			smsFields({ to: '+919812345679' }),
			withKey('k1'),
		);
		expect(reply.status).toBe(422);
		expect(errorOf(reply).code).toBe('idempotency_key_reused');
		expect(sandbox.messages()).toHaveLength(1);
	});

	it('treats different keys, and requests without a key, as different messages', async () => {
		await post(sandbox, '/v1/sms/send', smsFields(), withKey('a'));
		await post(sandbox, '/v1/sms/send', smsFields(), withKey('b'));
		await post(sandbox, '/v1/sms/send', smsFields());
		await post(sandbox, '/v1/sms/send', smsFields());
		expect(sandbox.messages()).toHaveLength(4);
	});

	it('does not remember a refused request: the corrected one under the same key is accepted', async () => {
		const refused = await post(
			sandbox,
			'/v1/sms/send',
			smsFields({ content: { otp: '1' } }),
			withKey('k2'),
		);
		expect(refused.status).toBe(422);
		const corrected = await post(sandbox, '/v1/sms/send', smsFields(), withKey('k2'));
		expect(corrected.status).toBe(200);
		expect(sandbox.messages()).toHaveLength(1);
	});

	it('forgets a key after 24 hours of sandbox time', async () => {
		const first = await post(sandbox, '/v1/sms/send', smsFields(), withKey('k3'));
		sandbox.clock.advance(24 * 60 * 60 * 1000);
		const later = await post(sandbox, '/v1/sms/send', smsFields(), withKey('k3'));
		expect(later.status).toBe(200);
		expect(later.body).not.toEqual(first.body);
		expect(sandbox.messages()).toHaveLength(2);
	});

	it('accepts once when the same keyed request arrives twice at the same time', async () => {
		sandbox.configure({ latency: { fixedMs: 30 } });
		const replies = await Promise.all([
			post(sandbox, '/v1/sms/send', smsFields(), withKey('k4')),
			post(sandbox, '/v1/sms/send', smsFields(), withKey('k4')),
		]);
		expect(replies[0].body).toEqual(replies[1].body);
		expect(sandbox.messages()).toHaveLength(1);
	});

	it('starts no second lifecycle for a replay', async () => {
		const receiver = await startWebhookReceiver();
		sandbox.configure({ lifecycle: { stepDelayMs: 5 } });
		sandbox.setWebhookUrl(receiver.url);
		try {
			await post(sandbox, '/v1/sms/send', smsFields(), withKey('k5'));
			await post(sandbox, '/v1/sms/send', smsFields(), withKey('k5'));
			await receiver.waitFor(2);
			await waitUntil(
				() => sandbox.messages()[0].status === 'delivered',
				'the message is delivered',
			);
			await pause(50);
			expect(receiver.received.map((delivery) => delivery.event.status)).toEqual([
				'sent',
				'delivered',
			]);
		} finally {
			await receiver.close();
		}
	});
});
