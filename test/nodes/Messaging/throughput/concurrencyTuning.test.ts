import {
	affordableInFlight,
	toleratedRoundTrip,
} from '../../../../nodes/Messaging/throughput/concurrencyTuning';

describe('toleratedRoundTrip', () => {
	test('1.5 × the fastest, or 50 ms above it on a fast provider', () => {
		expect(toleratedRoundTrip(200)).toBe(300);
		expect(toleratedRoundTrip(20)).toBe(70);
	});
});

describe('affordableInFlight', () => {
	test('the budget left plus two round trips of refill, never under one', () => {
		// 600 per 60 s refills 10/s: 200 ms round trips add 2 × 2.
		expect(affordableInFlight({ remaining: 30, quota: 600, windowSeconds: 60 }, 200)).toBe(34);
		expect(affordableInFlight({ remaining: 0, quota: 600, windowSeconds: 60 }, 0)).toBe(1);
	});
});
