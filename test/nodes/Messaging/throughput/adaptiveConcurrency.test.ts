import { AdaptiveConcurrencyLimit } from '../../../../nodes/Messaging/throughput/adaptiveConcurrency';
import { AUTOMATIC_UPPER_BOUND } from '../../../../nodes/Messaging/throughput/concurrencyTuning';
import type { FailureKind } from '../../../../nodes/Messaging/vocabulary/failureKind';
import { VirtualClock } from './virtualClock';

/** One round trip: `current` requests at once, each answering after `latencyMs` (or failing with `failure`). */
async function roundTrip(
	limit: AdaptiveConcurrencyLimit,
	clock: VirtualClock,
	latencyMs: number,
	failure?: FailureKind,
): Promise<void> {
	const requests = Array.from({ length: limit.current }, async () => {
		await limit.track(
			async () => {
				await clock.sleep(latencyMs);
				return failure;
			},
			(answer) => answer,
		);
	});
	await clock.run(Promise.all(requests));
}

describe('AdaptiveConcurrencyLimit', () => {
	test('starts at 5 and grows by half per round trip while the latency holds, up to its bound', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({}, clock);
		const seen = [limit.current];
		for (let trip = 0; trip < 9; trip++) {
			await roundTrip(limit, clock, 200);
			seen.push(limit.current);
		}
		expect(seen).toEqual([5, 7, 11, 16, 25, 37, 56, 85, 100, 100]);
		expect(AUTOMATIC_UPPER_BOUND).toBe(100);
	});

	test('a bound the user set is where it starts and what it never exceeds', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({ upperBound: 5 }, clock);
		for (let trip = 0; trip < 5; trip++) await roundTrip(limit, clock, 20);
		expect(limit.current).toBe(5);
	});

	test('past slow start, shrinks when the latency stays above 1.5 × the fastest for two round trips', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({ upperBound: 40 }, clock);
		await roundTrip(limit, clock, 100);
		await roundTrip(limit, clock, 145);
		expect(limit.current).toBe(40);
		await roundTrip(limit, clock, 200);
		expect(limit.current).toBe(40);
		await roundTrip(limit, clock, 200);
		// Past slow start a cut is a fifth at most: the gradient (0.75) asks for more.
		expect(limit.current).toBe(Math.floor(40 * 0.8));
		await roundTrip(limit, clock, 1000);
		await roundTrip(limit, clock, 1000);
		expect(limit.current).toBe(Math.floor(32 * 0.8));
	});

	test('a stall that delays most requests of a round trip is not queueing: the luckiest tenth decides', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({ upperBound: 20 }, clock);
		await roundTrip(limit, clock, 100);
		for (let trip = 0; trip < 4; trip++) {
			let started = 0;
			const requests = Array.from({ length: limit.current }, async () => {
				const stalled = started++ >= 4;
				await limit.track(
					async () => await clock.sleep(stalled ? 400 : 100),
					() => 'final',
				);
			});
			await clock.run(Promise.all(requests));
		}
		expect(limit.current).toBe(20);
	});

	test('slow start: a step that slowed the round trip and delivered no more answers is undone, judged on two round trips', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({}, clock);
		await roundTrip(limit, clock, 100);
		await roundTrip(limit, clock, 100);
		expect(limit.current).toBe(11);
		await roundTrip(limit, clock, 400);
		expect(limit.current).toBe(11);
		await roundTrip(limit, clock, 400);
		expect(limit.current).toBe(7);
		// Undone, it only probes from there: by √limit, not by half.
		await roundTrip(limit, clock, 100);
		expect(limit.current).toBe(Math.floor(7.5 + Math.sqrt(7.5)));
	});

	test('slow start: a step that lengthened the round trip but delivered more answers per second is kept (n8n itself queueing)', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({}, clock);
		// A busy host: every request in flight adds a millisecond of its CPU to every round trip.
		const hostBound = () => 20 + limit.current;
		const seen = [limit.current];
		for (let trip = 0; trip < 8; trip++) {
			await roundTrip(limit, clock, hostBound());
			seen.push(limit.current);
		}
		// 56 in flight take 76 ms, past the 70 ms the fastest round trip (25 ms) tolerates, yet deliver 0.74 answers
		// per ms against 37's 0.65: the step is kept after two round trips and slow start goes on.
		expect(seen).toEqual([5, 7, 11, 16, 25, 37, 56, 56, 85]);
	});

	test('after a cut it probes upward by √limit per round trip, not by half', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({ upperBound: 16 }, clock);
		await roundTrip(limit, clock, 100);
		await roundTrip(limit, clock, 400);
		await roundTrip(limit, clock, 400);
		expect(limit.current).toBe(Math.floor(16 * 0.8));
		await roundTrip(limit, clock, 100);
		expect(limit.current).toBe(Math.floor(12.8 + Math.sqrt(12.8)));
	});

	test('a 429 cuts the limit to 0.7 × once for all the requests that were in flight together', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({ upperBound: 20 }, clock);
		await roundTrip(limit, clock, 50, 'rate_limited');
		expect(limit.current).toBe(14);
		await roundTrip(limit, clock, 50, 'rate_limited');
		expect(limit.current).toBe(9);
	});

	test('a request that never reached the provider teaches nothing; a server error is a latency sample', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({}, clock);
		await roundTrip(limit, clock, 1, 'not_sent');
		expect(limit.current).toBe(5);
		await roundTrip(limit, clock, 100, 'maybe_processed');
		expect(limit.current).toBe(7);
	});

	test('never more in flight than the budget left and two round trips of refill pay for', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({ upperBound: 50 }, clock);
		await roundTrip(limit, clock, 200);
		limit.recordProviderBudget({ remaining: 30, quota: 600, windowSeconds: 60 });
		expect(limit.current).toBe(34);
		limit.recordProviderBudget({ remaining: 0, quota: 600, windowSeconds: 60 });
		expect(limit.current).toBe(4);
		limit.recordProviderBudget({ remaining: 500, quota: 600, windowSeconds: 60 });
		expect(limit.current).toBe(4);
	});

	test('a provider slower for everyone: at one in flight its latency becomes the new baseline', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({}, clock);
		await roundTrip(limit, clock, 100);
		for (let trip = 0; trip < 12 && limit.current > 1; trip++) await roundTrip(limit, clock, 800);
		expect(limit.current).toBe(1);
		await roundTrip(limit, clock, 800);
		await roundTrip(limit, clock, 800);
		const regrowth = [limit.current];
		for (let trip = 0; trip < 4; trip++) {
			await roundTrip(limit, clock, 800);
			regrowth.push(limit.current);
		}
		expect(regrowth).toEqual([2, 3, 5, 8, 12]);
	});
});
