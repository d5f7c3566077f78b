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
		expect(seen).toEqual([10, 36, 54, 81, 100, 100]);
		expect([AUTOMATIC_START, SECOND_ROUND_TRIP_LIMIT]).toEqual([10, 36]);
		expect(AUTOMATIC_UPPER_BOUND).toBe(100);
	});

	test('slow start steps up once per round trip though answers spread over a quarter of it', async () => {
		const clock = new VirtualClock();
		const api = new VirtualMessagingApi({ latencyMs: 200, jitterMs: 50 }, clock);
		await sendThroughVirtualApi(api, clock, 400);
		const inFlightBy = (ms: number) =>
			Math.max(...api.starts.filter(({ at }) => at <= ms).map(({ inFlight }) => inFlight));
		// Each round trip takes at most 250 ms; the answers that decide are those of the requests the step added.
		expect([inFlightBy(250), inFlightBy(500), inFlightBy(750)]).toEqual([36, 54, 81]);
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
		expect(limit.current).toBe(81);
		await roundTrip(limit, clock, 400);
		expect(limit.current).toBe(81);
		await roundTrip(limit, clock, 400);
		expect(limit.current).toBe(54);
		// Undone, it only probes from there: by √limit, not by half.
		await roundTrip(limit, clock, 100);
		expect(limit.current).toBe(Math.floor(54 + Math.sqrt(54)));
	});

	test("a step slow in its own burst but not in the next round trip goes on growing: the burst's cost was one-off", async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({}, clock);
		await roundTrip(limit, clock, 100);
		expect(limit.current).toBe(36);
		// n8n sends the step's 26 new requests back to back: the last wait up to 205 ms.
		await roundTripEach(limit, clock, (index) => (index < 10 ? 100 : 100 + 3 * index));
		expect(limit.current).toBe(36);
		// At the same limit, its requests leaving as answers come back, the round trip holds.
		await roundTrip(limit, clock, 110);
		expect(limit.current).toBe(54);
	});

	test('the jump from 10 to 36 that lengthened the round trip goes back to what the provider answered unqueued', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({}, clock);
		await roundTrip(limit, clock, 100);
		expect(limit.current).toBe(36);
		// 36 in flight take 250 ms, twice: 0.144 answers per ms, which at the unloaded 100 ms fill 14 in flight.
		await roundTrip(limit, clock, 250);
		await roundTrip(limit, clock, 250);
		expect(limit.current).toBe(14);
		await roundTrip(limit, clock, 100);
		expect(limit.current).toBe(Math.floor(14.4 + Math.sqrt(14.4)));
	});

	test('a slow first round trip does not loosen the tolerance: the first answers of the step to 36 read the latency', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({}, clock);
		// A provider hiccup: the first 10 take 160 ms, which would tolerate 240.
		await roundTrip(limit, clock, 160);
		expect(limit.current).toBe(36);
		// The first half of the step meets the provider's 100 ms; the half that met 36 in flight takes 200, and so
		// does the round trip after it.
		await roundTripEach(limit, clock, (index) => (index < 20 ? 100 : 200));
		await roundTrip(limit, clock, 200);
		expect(limit.current).toBe(18);
	});

	test('slow start reads the requests that left last in its step: a provider meets the first of a burst unloaded', async () => {
		const clock = new VirtualClock();
		const api = new VirtualMessagingApi({ latencyMs: 100, jitterMs: 0, kneeInFlight: 20 }, clock);
		await sendThroughVirtualApi(api, clock, 200);
		// The step to 36 meets the first of its 26 new requests at 11 to 20 in flight, unqueued (their median:
		// 120 ms, within the 150 ms tolerated); the last quarter of the rise takes 160 to 200 ms. Read on those, the
		// step is undone before 54 go out.
		expect(api.peakInFlight).toBe(36);
	});

	test('a step held after it read slow is judged on a whole round trip: the first answers of those leaving one by one are the fastest', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({}, clock);
		await roundTrip(limit, clock, 100);
		const send = async (ms: number) =>
			await limit.track(
				async () => await clock.sleep(ms),
				() => undefined,
			);
		// Of the round trip held at 36, the five that leave first answer in 150 ms, the others in 190.
		let held = 0;
		const sendHeld = async () => await send(held++ < 5 ? 150 : 190);
		// The step reads 190 ms on its 36th answer; the 35 answered before it have gone on already.
		const step = Array.from({ length: 35 }, async () => {
			await send(190);
			await send(190);
			await sendHeld();
		});
		const last = (async () => {
			await send(200);
			await sendHeld();
		})();
		await clock.run(Promise.all([...step, last]));
		// Its first five answers read 150 ms, the tolerance; all 36 read 190: back to what it answered unqueued.
		expect(limit.current).toBe(Math.floor((36 * 100) / 190));
	});

	test('a probe that slowed one round trip is judged on the next, though that one reads fast', async () => {
		const clock = new VirtualClock();
		const limit = new AdaptiveConcurrencyLimit({}, clock);
		await roundTrip(limit, clock, 100);
		await roundTrip(limit, clock, 100);
		await roundTrip(limit, clock, 400);
		await roundTrip(limit, clock, 400);
		expect(limit.current).toBe(36);
		await roundTrip(limit, clock, 100);
		expect(limit.current).toBe(42);
		// 42 in flight, twice as slow: then a round trip as fast as ever, as after a stall that emptied the queue.
		// Their mean rate (0.21 and 0.42 per ms) is not 4 % above 36's 0.36, so the probe is undone, not grown on.
		await roundTrip(limit, clock, 200);
		await roundTrip(limit, clock, 100);
		expect(limit.current).toBe(36);
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
		// 81 in flight take 181 ms, past the 165 ms the fastest round trip (110 ms) tolerates, in the step's round
		// trip and the next: slow start ends back at 54. The probe to 61 holds; the one to 69 takes 169 ms, past it
		// again, yet delivers 0.408 answers per ms against 61's 0.379: kept after two round trips, not undone to 61.
		expect(seen).toEqual([10, 36, 54, 81, 81, 54, 61, 69, 69, 69]);
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
		expect(limit.current).toBe(AUTOMATIC_START);
		await roundTrip(limit, clock, 100, 'maybe_processed');
		expect(limit.current).toBe(SECOND_ROUND_TRIP_LIMIT);
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

	/** A run to the slot's provider that went 10, then 36 in flight at 200 ms and left its pace at 54, in slow start. */
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
		expect(first.current).toBe(54);
		const second = new AdaptiveConcurrencyLimit({ pace }, clock);
		expect(second.current).toBe(54);
		// Still in slow start, with the fastest round trip it knew: the same latency grows it by half.
		await roundTrip(second, clock, 200);
		expect(second.current).toBe(81);
		// A queue forming is read against the latency the last run knew, not taken as the new normal: the step that
		// doubled the round trip, twice, ends slow start, undone.
		await roundTrip(second, clock, 400);
		await roundTrip(second, clock, 400);
		expect(second.current).toBe(54);
	});

	test('a run that resumes a pace starts with a burst of that many: one slow round trip holds it, two cut it', async () => {
		const clock = new VirtualClock();
		const pace = slot();
		await learningRun(pace, clock);
		const held = new AdaptiveConcurrencyLimit({ pace }, clock);
		await roundTrip(held, clock, 600);
		expect(held.current).toBe(54);
		await roundTrip(held, clock, 200);
		expect(held.current).toBe(81);
		const resumed = new AdaptiveConcurrencyLimit({ pace }, clock);
		expect(resumed.current).toBe(81);
		await roundTrip(resumed, clock, 600);
		expect(resumed.current).toBe(81);
		await roundTrip(resumed, clock, 600);
		// Slow start cuts by the gradient (300 ms tolerated ÷ 600), at most by half.
		expect(resumed.current).toBe(40);
	});

	test('a pace older than PACE_KEPT_MS is not reused', async () => {
		const clock = new VirtualClock();
		const pace = slot();
		await learningRun(pace, clock);
		const learnt = new AdaptiveConcurrencyLimit({ pace }, clock).current;
		await clock.run(clock.sleep(PACE_KEPT_MS + 1));
		expect(learnt).toBe(54);
		expect(new AdaptiveConcurrencyLimit({ pace }, clock).current).toBe(AUTOMATIC_START);
	});

	test('a pace cut by a 429 is not reused, nor anything the run learns after it', async () => {
		const clock = new VirtualClock();
		const pace = slot();
		const first = await learningRun(pace, clock);
		expect(new AdaptiveConcurrencyLimit({ pace }, clock).current).toBe(54);
		await roundTrip(first, clock, 200, 'rate_limited');
		expect(first.current).toBe(Math.floor(54 * 0.7));
		for (let trip = 0; trip < 3; trip++) await roundTrip(first, clock, 200);
		expect(first.current).toBeGreaterThan(AUTOMATIC_START);
		expect(new AdaptiveConcurrencyLimit({ pace }, clock).current).toBe(AUTOMATIC_START);
	});

	test('a pace cut to what the provider budget left is not reused', async () => {
		const clock = new VirtualClock();
		const pace = slot();
		const first = await learningRun(pace, clock);
		expect(new AdaptiveConcurrencyLimit({ pace }, clock).current).toBe(54);
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
