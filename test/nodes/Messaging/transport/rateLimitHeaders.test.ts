import { readProviderBudget } from '../../../../nodes/Messaging/transport/rateLimitHeaders';

describe('readProviderBudget', () => {
	test.each([
		[
			'IETF headers with a policy',
			{ 'RateLimit-Limit': '100', 'RateLimit-Remaining': '5', 'RateLimit-Policy': '100;w=1' },
			{ remaining: 5, quota: 100, windowSeconds: 1 },
		],
		[
			'a bucket smaller than a second',
			{ 'ratelimit-remaining': '3', 'ratelimit-policy': '10;w=0.1' },
			{ remaining: 3, quota: 10, windowSeconds: 0.1 },
		],
		[
			'a policy with more parameters',
			{ 'RateLimit-Remaining': '0', 'RateLimit-Policy': '3600;comment="hour";w=3600, 10;w=1' },
			{ remaining: 0, quota: 3600, windowSeconds: 3600 },
		],
		[
			'the limit without a policy, taken as per second',
			{ 'RateLimit-Limit': '50', 'RateLimit-Remaining': '49' },
			{ remaining: 49, quota: 50, windowSeconds: 1 },
		],
		[
			'a fixed window of a minute with the seconds until it resets',
			{
				'RateLimit-Limit': '50',
				'RateLimit-Remaining': '0',
				'RateLimit-Reset': '37',
				'RateLimit-Policy': '50;w=60',
			},
			{ remaining: 0, quota: 50, windowSeconds: 60, resetSeconds: 37 },
		],
		[
			'the older X-RateLimit pair',
			{ 'X-RateLimit-Limit': '20', 'X-RateLimit-Remaining': '7' },
			{ remaining: 7, quota: 20, windowSeconds: 1 },
		],
	])('reads %s', (_, headers, budget) => {
		expect(readProviderBudget(headers)).toEqual(budget);
	});

	test('reads a reset given as a Unix time (GitHub style) as the seconds until then', () => {
		const nowMs = Date.UTC(2026, 0, 1);
		const headers = {
			'X-RateLimit-Limit': '5000',
			'X-RateLimit-Remaining': '0',
			'X-RateLimit-Reset': String(nowMs / 1000 + 1800),
		};
		expect(readProviderBudget(headers, nowMs)).toEqual({
			remaining: 0,
			quota: 5000,
			windowSeconds: 1,
			resetSeconds: 1800,
		});
	});

	test.each([
		['no headers', {}],
		['a remaining count without a limit', { 'RateLimit-Remaining': '5' }],
		['a count that is not a number', { 'RateLimit-Limit': '100', 'RateLimit-Remaining': 'lots' }],
		['a negative count', { 'RateLimit-Limit': '100', 'RateLimit-Remaining': '-1' }],
		['a zero limit', { 'RateLimit-Limit': '0', 'RateLimit-Remaining': '0' }],
		['a zero window', { 'RateLimit-Remaining': '1', 'RateLimit-Policy': '10;w=0' }],
	])('gives nothing for %s', (_, headers) => {
		expect(readProviderBudget(headers)).toBeUndefined();
	});
});
