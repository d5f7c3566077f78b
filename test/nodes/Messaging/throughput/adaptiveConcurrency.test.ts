import { AdaptiveConcurrencyLimit } from '../../../../nodes/Messaging/throughput/adaptiveConcurrency';
import {
	AUTOMATIC_START,
	AUTOMATIC_UPPER_BOUND,
	SECOND_ROUND_TRIP_LIMIT,
} from '../../../../nodes/Messaging/throughput/concurrencyTuning';
import {
	PACE_KEPT_MS,
	PaceMemory,
	type PaceSlot,
} from '../../../../nodes/Messaging/throughput/paceMemory';
import type { FailureKind } from '../../../../nodes/Messaging/vocabulary/failureKind';
import { VirtualClock } from './virtualClock';
import { sendThroughVirtualApi, VirtualMessagingApi } from './virtualMessagingApi';

/**
 * One round trip: `current` requests at once, request `index` (in start order) answering after `latencyOf(index)`
 * (or failing with `failure`).
 */
async function roundTripEach(
	limit: AdaptiveConcurrencyLimit,
	clock: VirtualClock,
	latencyOf: (index: number) => number,
	failure?: FailureKind,
): Promise<void> {
	const requests = Array.from({ length: limit.current }, async (_, index) => {
		await limit.track(
			async () => {
				await clock.sleep(latencyOf(index));
				return failure;
			},
			(answer) => answer,
		);
	});
	await clock.run(Promise.all(requests));
}

/** One round trip: `current` requests at once, each answering after `latencyMs` (or failing with `failure`). */
async function roundTrip(
	limit: AdaptiveConcurrencyLimit,
	clock: VirtualClock,
	latencyMs: number,
	failure?: FailureKind,
): Promise<void> {
	await roundTripEach(limit, clock, () => latencyMs, failure);
}

describe('AdaptiveConcurrencyLimit', () => {
	test('starts at 5, goes to 40 once that round trip held, then grows by half per round trip, up to its bound', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({}, clock);
		const seen = [limit.current];
		for (let trip = 0; trip < 5; trip++) {
			await roundTrip(limit, clock, 200);
			seen.push(limit.current);
		}
		expect(seen).toEqual([5, 40, 60, 90, 100, 100]);
		expect([AUTOMATIC_START, SECOND_ROUND_TRIP_LIMIT]).toEqual([5, 40]);
		expect(AUTOMATIC_UPPER_BOUND).toBe(100);
	});

	test('slow start steps up once per round trip though answers spread over a quarter of it', async () => {
		const clock = new VirtualClock();
		const api = new VirtualMessagingApi({ latencyMs: 200, jitterMs: 50 }, clock);
		await sendThroughVirtualApi(api, clock, 400);
		const inFlightBy = (ms: number) =>
			Math.max(...api.starts.filter(({ at }) => at <= ms).map(({ inFlight }) => inFlight));
		// Each round trip takes at most 250 ms; the answers that decide are those of the requests the step added.
		expect([inFlightBy(250), inFlightBy(500), inFlightBy(750)]).toEqual([40, 60, 90]);
		expect(inFlightBy(1000)).toBeGreaterThanOrEqual(80);
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

	test('slow start ends when its step lengthened the round trip and the next one at that limit, and the step is undone', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({}, clock);
		await roundTrip(limit, clock, 100);
		await roundTrip(limit, clock, 100);
		await roundTrip(limit, clock, 100);
		expect(limit.current).toBe(90);
		await roundTrip(limit, clock, 400);
		expect(limit.current).toBe(90);
		await roundTrip(limit, clock, 400);
		expect(limit.current).toBe(60);
		// Undone, it only probes from there: by √limit, not by half.
		await roundTrip(limit, clock, 100);
		expect(limit.current).toBe(Math.floor(60 + Math.sqrt(60)));
	});

	test("a step slow in its own burst but not in the next round trip goes on growing: the burst's cost was one-off", async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({}, clock);
		await roundTrip(limit, clock, 100);
		expect(limit.current).toBe(40);
		// n8n sends the step's 35 new requests back to back: the last wait up to 217 ms.
		await roundTripEach(limit, clock, (index) => (index < 5 ? 100 : 100 + 3 * index));
		expect(limit.current).toBe(40);
		// At the same limit, its requests leaving as answers come back, the round trip holds.
		await roundTrip(limit, clock, 110);
		expect(limit.current).toBe(60);
	});

	test('the jump from 5 to 40 that lengthened the round trip goes back to what the provider answered unqueued', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({}, clock);
		await roundTrip(limit, clock, 100);
		expect(limit.current).toBe(40);
		// 40 in flight take 250 ms, twice: 0.16 answers per ms, which at the unloaded 100 ms fill 16 in flight.
		await roundTrip(limit, clock, 250);
		await roundTrip(limit, clock, 250);
		expect(limit.current).toBe(16);
		await roundTrip(limit, clock, 100);
		expect(limit.current).toBe(20);
	});

	test('a slow first round trip does not loosen the tolerance: the first answers of the step to 40 read the latency', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({}, clock);
		// A provider hiccup: the first 5 take 160 ms, which would tolerate 240.
		await roundTrip(limit, clock, 160);
		expect(limit.current).toBe(40);
		// The first half of the step meets the provider's 100 ms; the half that met 40 in flight takes 200, and so
		// does the round trip after it.
		await roundTripEach(limit, clock, (index) => (index < 20 ? 100 : 200));
		await roundTrip(limit, clock, 200);
		expect(limit.current).toBe(20);
	});

	test('slow start reads the requests that left last in its step: a provider meets the first of a burst unloaded', async () => {
		const clock = new VirtualClock();
		const api = new VirtualMessagingApi({ latencyMs: 100, jitterMs: 0, kneeInFlight: 20 }, clock);
		await sendThroughVirtualApi(api, clock, 200);
		// The step to 40 meets the first of its 35 new requests at 6 to 20 in flight, unqueued (their median:
		// 120 ms, within the 150 ms tolerated); the last quarter of the rise takes 160 to 200 ms. Read on those, the
		// step is undone before 60 go out.
		expect(api.peakInFlight).toBe(40);
	});

	test('a probe that slowed one round trip is judged on the next, though that one reads fast', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({}, clock);
		await roundTrip(limit, clock, 100);
		await roundTrip(limit, clock, 100);
		await roundTrip(limit, clock, 400);
		await roundTrip(limit, clock, 400);
		expect(limit.current).toBe(40);
		await roundTrip(limit, clock, 100);
		expect(limit.current).toBe(46);
		// 46 in flight, twice as slow: then a round trip as fast as ever, as after a stall that emptied the queue.
		// Their mean rate (0.23 and 0.46 per ms) is not 4 % above 40's 0.4, so the probe is undone, not grown on.
		await roundTrip(limit, clock, 200);
		await roundTrip(limit, clock, 100);
		expect(limit.current).toBe(40);
	});

	test('the limit grows only on a median that held: the lucky tenth after a stall neither grows nor cuts it', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({}, clock);
		await roundTrip(limit, clock, 100);
		await roundTrip(limit, clock, 400);
		await roundTrip(limit, clock, 400);
		expect(limit.current).toBe(10);
		// After a stall, the 2 requests n8n sends first meet an emptied queue; the other 8 wait out the stall.
		for (let trip = 0; trip < 3; trip++) {
			await roundTripEach(limit, clock, (index) => (index < 2 ? 100 : 300));
			expect(limit.current).toBe(10);
		}
		await roundTrip(limit, clock, 100);
		expect(limit.current).toBe(13);
	});

	test('past slow start, a probe that lengthened the round trip but delivered more answers per second is kept (n8n itself queueing)', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({}, clock);
		// A busy host: every request in flight adds a millisecond of its CPU to every round trip.
		const hostBound = () => 100 + limit.current;
		const seen = [limit.current];
		for (let trip = 0; trip < 9; trip++) {
			await roundTrip(limit, clock, hostBound());
			seen.push(limit.current);
		}
		// 60 in flight take 160 ms, past the 157.5 ms the fastest round trip (105 ms) tolerates, in the step's round
		// trip and the next: slow start ends back at 40. The probes to 46 and 53 hold; the one to 60 takes 160 ms,
		// past it again, yet delivers 0.375 answers per ms against 53's 0.347: kept after two round trips, not undone
		// to 53.
		expect(seen).toEqual([5, 40, 60, 60, 40, 46, 53, 60, 60, 60]);
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
		expect(limit.current).toBe(40);
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
		for (let trip = 0; trip < 30 && limit.current > 1; trip++) await roundTrip(limit, clock, 800);
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

describe('AdaptiveConcurrencyLimit across runs to one provider (a pace slot)', () => {
	const slot = (): PaceSlot => ({
		memory: new PaceMemory(),
		key: 'credential\u0000https://api.test',
	});

	/** A run to the slot's provider that went 5, then 40 in flight at 200 ms and left its pace at 60, in slow start. */
	async function learningRun(
		pace: PaceSlot,
		clock: VirtualClock,
	): Promise<AdaptiveConcurrencyLimit> {
		const run = new AdaptiveConcurrencyLimit({ pace }, clock);
		await roundTrip(run, clock, 200);
		await roundTrip(run, clock, 200);
		return run;
	}

	test('the next run starts at the pace the last one learnt, and goes on searching from there', async () => {
		const clock = new VirtualClock();
		const pace = slot();
		const first = await learningRun(pace, clock);
		expect(first.current).toBe(60);
		const second = new AdaptiveConcurrencyLimit({ pace }, clock);
		expect(second.current).toBe(60);
		// Still in slow start, with the fastest round trip it knew: the same latency grows it by half.
		await roundTrip(second, clock, 200);
		expect(second.current).toBe(90);
		// A queue forming is read against the latency the last run knew, not taken as the new normal: the step that
		// doubled the round trip, twice, ends slow start, undone.
		await roundTrip(second, clock, 400);
		await roundTrip(second, clock, 400);
		expect(second.current).toBe(60);
	});

	test('a run that resumes a pace starts with a burst of that many: one slow round trip holds it, two cut it', async () => {
		const clock = new VirtualClock();
		const pace = slot();
		await learningRun(pace, clock);
		const held = new AdaptiveConcurrencyLimit({ pace }, clock);
		await roundTrip(held, clock, 600);
		expect(held.current).toBe(60);
		await roundTrip(held, clock, 200);
		expect(held.current).toBe(90);
		const resumed = new AdaptiveConcurrencyLimit({ pace }, clock);
		expect(resumed.current).toBe(90);
		await roundTrip(resumed, clock, 600);
		expect(resumed.current).toBe(90);
		await roundTrip(resumed, clock, 600);
		// Slow start cuts by the gradient (300 ms tolerated ÷ 600), at most by half.
		expect(resumed.current).toBe(45);
	});

	test('a pace older than PACE_KEPT_MS is not reused', async () => {
		const clock = new VirtualClock();
		const pace = slot();
		await learningRun(pace, clock);
		const learnt = new AdaptiveConcurrencyLimit({ pace }, clock).current;
		await clock.run(clock.sleep(PACE_KEPT_MS + 1));
		expect(learnt).toBe(60);
		expect(new AdaptiveConcurrencyLimit({ pace }, clock).current).toBe(AUTOMATIC_START);
	});

	test('a pace cut by a 429 is not reused, nor anything the run learns after it', async () => {
		const clock = new VirtualClock();
		const pace = slot();
		const first = await learningRun(pace, clock);
		expect(new AdaptiveConcurrencyLimit({ pace }, clock).current).toBe(60);
		await roundTrip(first, clock, 200, 'rate_limited');
		expect(first.current).toBe(Math.floor(60 * 0.7));
		for (let trip = 0; trip < 3; trip++) await roundTrip(first, clock, 200);
		expect(first.current).toBeGreaterThan(AUTOMATIC_START);
		expect(new AdaptiveConcurrencyLimit({ pace }, clock).current).toBe(AUTOMATIC_START);
	});

	test('a pace cut to what the provider budget left is not reused', async () => {
		const clock = new VirtualClock();
		const pace = slot();
		const first = await learningRun(pace, clock);
		expect(new AdaptiveConcurrencyLimit({ pace }, clock).current).toBe(60);
		first.recordProviderBudget({ remaining: 2, quota: 100, windowSeconds: 60 });
		expect(new AdaptiveConcurrencyLimit({ pace }, clock).current).toBe(AUTOMATIC_START);
	});

	test('a bound the user set neither reads nor writes the slot', async () => {
		const clock = new VirtualClock();
		const pace = slot();
		const bounded = new AdaptiveConcurrencyLimit({ upperBound: 10, pace }, clock);
		for (let trip = 0; trip < 3; trip++) await roundTrip(bounded, clock, 200);
		expect(pace.memory.recall(pace.key, clock.now())).toBeUndefined();
		const automatic = new AdaptiveConcurrencyLimit({ pace }, clock);
		for (let trip = 0; trip < 5; trip++) await roundTrip(automatic, clock, 200);
		expect(new AdaptiveConcurrencyLimit({ upperBound: 10, pace }, clock).current).toBe(10);
	});
});
