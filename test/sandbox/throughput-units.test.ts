import { createManualClock } from '../../sandbox';
import { IdempotencyStore, requestFingerprint } from '../../sandbox/throughput/idempotency-store';
import { RateLimiter } from '../../sandbox/throughput/rate-limiter';
import { TokenBucket } from '../../sandbox/throughput/token-bucket';
import { ApiError } from '../../sandbox/http/api-error';
import type { RateLimitConfig } from '../../sandbox/types';

describe('TokenBucket', () => {
	it('lets a client sending at exactly the rate through, even with a burst of one', () => {
		for (const perSecond of [3, 7, 10, 100]) {
			let now = 0;
			const bucket = new TokenBucket(perSecond, 1, () => now);
			for (let i = 0; i < 1000; i++) {
				expect(bucket.take()).toEqual({ allowed: true });
				now += 1000 / perSecond;
			}
		}
	});

	it('allows the burst, then refuses and says how long until the next token', () => {
		let now = 0;
		const bucket = new TokenBucket(4, 2, () => now);
		expect(bucket.take().allowed).toBe(true);
		expect(bucket.take().allowed).toBe(true);
		expect(bucket.take()).toEqual({ allowed: false, retryAfterMs: 250 });
		now += 100;
		expect(bucket.take()).toEqual({ allowed: false, retryAfterMs: expect.closeTo(150, 6) });
		now += 150;
		expect(bucket.take().allowed).toBe(true);
	});

	it('refills continuously but never above its capacity', () => {
		let now = 0;
		const bucket = new TokenBucket(10, 3, () => now);
		for (let i = 0; i < 3; i++) bucket.take();
		now += 60_000;
		const allowed = Array.from({ length: 5 }, () => bucket.take().allowed);
		expect(allowed).toEqual([true, true, true, false, false]);
	});
});

describe('RateLimiter', () => {
	function retryAfterOf(run: () => void): string | undefined {
		try {
			run();
		} catch (error) {
			expect(error).toBeInstanceOf(ApiError);
			expect((error as ApiError).status).toBe(429);
			expect((error as ApiError).code).toBe('rate_limited');
			return (error as ApiError).headers['Retry-After'];
		}
		return undefined;
	}

	it('answers Retry-After in whole seconds, at least 1', () => {
		let now = 0;
		const fast = new RateLimiter({ perSecond: 100, burst: 1 }, () => now);
		fast.admit('k');
		expect(retryAfterOf(() => fast.admit('k'))).toBe('1');

		const slow = new RateLimiter({ perSecond: 0.2, burst: 1 }, () => now);
		slow.admit('k');
		expect(retryAfterOf(() => slow.admit('k'))).toBe('5');
		now += 2500;
		expect(retryAfterOf(() => slow.admit('k'))).toBe('3');
	});

	it('reports the bucket after each take: the whole requests left and the seconds until it is full', () => {
		let now = 0;
		const limiter = new RateLimiter({ perSecond: 10, burst: 20 }, () => now);
		expect(limiter.admit('k')).toMatchObject({
			'RateLimit-Remaining': '19',
			'RateLimit-Reset': '1',
			'RateLimit-Policy': '20;w=2',
		});
		for (let i = 0; i < 14; i++) limiter.admit('k');
		expect(limiter.admit('k')).toMatchObject({
			'RateLimit-Limit': '10',
			'RateLimit-Remaining': '4',
			'RateLimit-Reset': '2',
		});
		now += 250;
		expect(limiter.admit('k')).toMatchObject({ 'RateLimit-Remaining': '5' });
		expect(new RateLimiter(null).admit('k')).toEqual({});
	});

	it('keeps one bucket per API key and lets everything through when off', () => {
		const limiter = new RateLimiter({ perSecond: 1, burst: 1 }, () => 0);
		limiter.admit('a');
		limiter.admit('b');
		expect(retryAfterOf(() => limiter.admit('a'))).toBe('1');
		limiter.configure(null);
		for (let i = 0; i < 100; i++) limiter.admit('a');
	});

	it('defaults the burst to one second of sends', () => {
		const limiter = new RateLimiter({ perSecond: 5 }, () => 0);
		for (let i = 0; i < 5; i++) limiter.admit('k');
		expect(retryAfterOf(() => limiter.admit('k'))).toBe('1');
	});

	it.each([
		[{ perSecond: 0 }],
		[{ perSecond: -1 }],
		[{ perSecond: 5, burst: 0.5 }],
		[{}],
		[{ window: { limit: 0, seconds: 60 } }],
		[{ window: { limit: 10 } }],
		[{ dailyCap: 2.5 }],
	])('refuses the setting %j', (config) => {
		expect(() => new RateLimiter(config as RateLimitConfig)).toThrow(/rateLimit/);
	});
});

describe('RateLimiter with fixed windows and a daily cap', () => {
	function refusalOf(run: () => void): ApiError {
		try {
			run();
		} catch (error) {
			expect(error).toBeInstanceOf(ApiError);
			return error as ApiError;
		}
		throw new Error('expected a 429');
	}

	it('counts a window from its first request, refuses past the limit until it ends, then whole again', () => {
		let now = 5_000;
		const limiter = new RateLimiter({ window: { limit: 3, seconds: 60 } }, () => now);
		expect(limiter.admit('k')).toEqual({
			'RateLimit-Limit': '3',
			'RateLimit-Remaining': '2',
			'RateLimit-Reset': '60',
			'RateLimit-Policy': '3;w=60',
		});
		now += 20_500;
		limiter.admit('k');
		expect(limiter.admit('k')).toMatchObject({
			'RateLimit-Remaining': '0',
			'RateLimit-Reset': '40',
		});
		const refused = refusalOf(() => limiter.admit('k'));
		expect(refused.status).toBe(429);
		expect(refused.message).toBe(
			'Too many requests: this API key may send 3 per 60 s. Retry after 40 s.',
		);
		expect(refused.headers).toMatchObject({ 'Retry-After': '40', 'RateLimit-Remaining': '0' });

		now = 5_000 + 60_000;
		expect(limiter.admit('k')).toMatchObject({
			'RateLimit-Remaining': '2',
			'RateLimit-Reset': '60',
		});
	});

	it('keeps a daily cap per key and UTC day of the wall clock, saying the seconds until midnight', () => {
		let wall = Date.UTC(2026, 10, 24, 20);
		const limiter = new RateLimiter(
			{ dailyCap: 2 },
			() => 0,
			() => wall,
		);
		limiter.admit('k');
		expect(limiter.admit('k')).toEqual({
			'RateLimit-Limit': '2',
			'RateLimit-Remaining': '0',
			'RateLimit-Reset': String(4 * 3600),
			'RateLimit-Policy': '2;w=86400',
		});
		const refused = refusalOf(() => limiter.admit('k'));
		expect(refused.message).toContain('may send 2 per day (UTC)');
		expect(refused.headers['Retry-After']).toBe(String(4 * 3600));
		expect(limiter.admit('other')).toMatchObject({ 'RateLimit-Remaining': '1' });

		wall = Date.UTC(2026, 10, 25, 0, 0, 1);
		expect(limiter.admit('k')).toMatchObject({ 'RateLimit-Remaining': '1' });
	});

	it('with a bucket, a window and a cap, tells the tightest and spends nothing of a budget that refuses', () => {
		let now = 0;
		const limiter = new RateLimiter(
			{ perSecond: 10, burst: 10, window: { limit: 4, seconds: 10 }, dailyCap: 100 },
			() => now,
			() => Date.UTC(2026, 10, 24, 12),
		);
		for (let i = 0; i < 3; i++) limiter.admit('k');
		expect(limiter.admit('k')).toEqual({
			'RateLimit-Limit': '4',
			'RateLimit-Remaining': '0',
			'RateLimit-Reset': '10',
			'RateLimit-Policy': '4;w=10, 10;w=1, 100;w=86400',
		});
		expect(refusalOf(() => limiter.admit('k')).headers['Retry-After']).toBe('10');
		now = 10_000;
		expect(limiter.admit('k')).toMatchObject({
			'RateLimit-Limit': '4',
			'RateLimit-Remaining': '3',
		});
		expect(limiter.admit('k')).toMatchObject({ 'RateLimit-Remaining': '2' });
	});
});

describe('IdempotencyStore', () => {
	const ack = (id: string) => ({
		message_id: id,
		status: 'queued' as const,
		channel: 'sms' as const,
	});

	it('replays for the same fingerprint, refuses another one, forgets after 24 hours', () => {
		const clock = createManualClock(0);
		const store = new IdempotencyStore(clock);
		expect(store.replay('key', 'idem-1', 'A')).toBeNull();
		store.remember('key', 'idem-1', 'A', ack('msg_1'));
		expect(store.replay('key', 'idem-1', 'A')).toEqual(ack('msg_1'));
		expect(() => store.replay('key', 'idem-1', 'B')).toThrow(
			expect.objectContaining({ status: 422, code: 'idempotency_key_reused' }),
		);
		expect(store.replay('other-account', 'idem-1', 'B')).toBeNull();
		clock.advance(24 * 60 * 60 * 1000);
		expect(store.replay('key', 'idem-1', 'B')).toBeNull();
	});

	it('stays bounded, dropping the oldest key first', () => {
		const store = new IdempotencyStore(createManualClock(0), 1000, 2);
		store.remember('k', 'one', 'A', ack('msg_1'));
		store.remember('k', 'two', 'A', ack('msg_2'));
		store.remember('k', 'three', 'A', ack('msg_3'));
		expect(store.size).toBe(2);
		expect(store.replay('k', 'one', 'A')).toBeNull();
		expect(store.replay('k', 'three', 'A')).toEqual(ack('msg_3'));
	});

	it('fingerprints fields, not their encoding or key order', () => {
		const form = { to: '+919812345678', content: '{"a":"1","b":2}' };
		const json = { content: { b: 2, a: '1' }, to: '+919812345678' };
		expect(requestFingerprint('/v1/sms/send', form)).toBe(requestFingerprint('/v1/sms/send', json));
		expect(requestFingerprint('/v1/sms/send', form)).not.toBe(
			requestFingerprint('/v1/whatsapp/send', form),
		);
		expect(requestFingerprint('/v1/sms/send', form)).not.toBe(
			requestFingerprint('/v1/sms/send', { ...form, content: '{"a":"1","b":3}' }),
		);
	});
});
