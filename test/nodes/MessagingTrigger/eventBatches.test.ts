import {
	canHold,
	EventBatch,
	heldNow,
	joinBatch,
	MAX_HELD_DELIVERIES,
	MIN_QUIET_MS,
	SPREAD_ANSWERS_FROM_DELIVERIES,
	STALL_MS,
} from '../../../nodes/MessagingTrigger/eventBatches';
import type { MessagingEvent } from '../../../nodes/MessagingTrigger/events';

let sequence = 0;
function events(count: number): MessagingEvent[] {
	return Array.from({ length: count }, () => ({
		event_id: `evt_batch_${++sequence}`,
		channel: 'sms',
		status: 'delivered',
	}));
}

function ids(list: MessagingEvent[]): string[] {
	return list.map((event) => event.event_id);
}

describe('EventBatch', () => {
	it('closes at once when it reaches its maximum, with the events in arrival order', async () => {
		const batch = new EventBatch({ waitMs: 60_000, maxEvents: 5 });
		const first = events(2);
		const second = events(3);
		batch.add(first);
		const collected = batch.collect();
		batch.add(second);

		expect(batch.isOpen).toBe(false);
		expect(ids(await collected)).toEqual(ids([...first, ...second]));
	});

	describe('on a fake clock', () => {
		beforeEach(() => jest.useFakeTimers());
		afterEach(() => jest.useRealTimers());

		/** Resolves `collecting` while advancing the clock in 1 ms steps; returns the time it took. */
		async function timeToClose(batch: EventBatch, joinEveryMs?: number): Promise<number> {
			const startedAt = Date.now();
			let closed = false;
			const collecting = batch.collect().then((collected) => {
				closed = true;
				return collected;
			});
			for (let tick = 1; !closed && tick < 10_000; tick++) {
				if (joinEveryMs && tick % joinEveryMs === 0 && batch.isOpen) batch.add(events(1));
				await jest.advanceTimersByTimeAsync(1);
			}
			await collecting;
			return Date.now() - startedAt;
		}

		it('answers a batch of 50 or more that arrived slower than 100 deliveries a second as far apart as it arrived, others at once', () => {
			const arrive = (count: number, everyMs: number): [EventBatch, number[]] => {
				const batch = new EventBatch({ waitMs: 5000, maxEvents: 100 });
				const joins = Array.from({ length: count }, (_, index) => {
					if (index > 0) jest.advanceTimersByTime(everyMs);
					return batch.add(events(1));
				});
				return [batch, joins];
			};

			const [slow, slowJoins] = arrive(SPREAD_ANSWERS_FROM_DELIVERIES, 20); // 50 a second
			const [fast, fastJoins] = arrive(SPREAD_ANSWERS_FROM_DELIVERIES, 5); // 200 a second
			const [few, fewJoins] = arrive(SPREAD_ANSWERS_FROM_DELIVERIES - 1, 20);

			expect(slowJoins.map((joined) => slow.answerDelayMs(joined))).toEqual(
				slowJoins.map((_, index) => index * 20),
			);
			expect(fastJoins.map((joined) => fast.answerDelayMs(joined))).toEqual(fastJoins.map(() => 0));
			expect(fewJoins.map((joined) => few.answerDelayMs(joined))).toEqual(fewJoins.map(() => 0));
			const [together, togetherJoins] = arrive(SPREAD_ANSWERS_FROM_DELIVERIES, 0);
			expect(togetherJoins.map((joined) => together.answerDelayMs(joined))).toEqual(
				togetherJoins.map(() => 0),
			);
		});

		it('closes when no delivery joined for a tenth of its wait', async () => {
			const batch = new EventBatch({ waitMs: 1000, maxEvents: 100 });
			batch.add(events(1));
			setTimeout(() => batch.add(events(1)), 50);
			setTimeout(() => batch.add(events(1)), 150);

			const took = await timeToClose(batch);

			expect(took).toBeGreaterThanOrEqual(250);
			expect(took).toBeLessThanOrEqual(252);
			expect(batch.eventCount).toBe(3);
		});

		it('closes at the end of its wait while deliveries keep joining', async () => {
			const batch = new EventBatch({ waitMs: 300, maxEvents: 1000 });
			batch.add(events(1));

			const took = await timeToClose(batch, 10);

			expect(took).toBeGreaterThanOrEqual(300);
			expect(took).toBeLessThanOrEqual(302);
			// The first delivery, and one every 10 ms from 9 ms to 299 ms.
			expect(batch.eventCount).toBe(31);
		});

		it('does not take a stalled event loop for quiet: the quiet time counts again once n8n is free', async () => {
			const batch = new EventBatch({ waitMs: 1000, maxEvents: 100 });
			batch.add(events(1));
			let closed = false;
			const collecting = batch.collect().then(() => (closed = true));
			await jest.advanceTimersByTimeAsync(20);
			// n8n busy for 250 ms (an execution starting): the leader's timer fires late, a delivery read next.
			jest.setSystemTime(Date.now() + 250);
			await jest.advanceTimersByTimeAsync(1);
			expect(closed).toBe(false);
			batch.add(events(1));
			await jest.advanceTimersByTimeAsync(99);
			expect(closed).toBe(false);
			await jest.advanceTimersByTimeAsync(STALL_MS + 1);

			await collecting;
			expect(batch.eventCount).toBe(2);
		});

		it('closes on quiet after a stall when nothing joins', async () => {
			const batch = new EventBatch({ waitMs: 1000, maxEvents: 100 });
			batch.add(events(1));
			const startedAt = Date.now();
			const collecting = batch.collect();
			await jest.advanceTimersByTimeAsync(20);
			jest.setSystemTime(Date.now() + 250);
			for (let tick = 0; tick < 300 && batch.isOpen; tick++) await jest.advanceTimersByTimeAsync(1);

			await collecting;
			// The stall ended 270 ms in; a tenth of the wait later, with nothing joined, it closed.
			expect(Date.now() - startedAt).toBeGreaterThanOrEqual(370);
			expect(Date.now() - startedAt).toBeLessThanOrEqual(372 + STALL_MS);
			expect(batch.eventCount).toBe(1);
		});

		it('waits at least the minimum quiet time for a short wait', async () => {
			const batch = new EventBatch({ waitMs: 100, maxEvents: 10 });
			batch.add(events(1));

			const took = await timeToClose(batch);

			expect(took).toBeGreaterThanOrEqual(MIN_QUIET_MS);
			expect(took).toBeLessThanOrEqual(MIN_QUIET_MS + 2);
		});
	});

	it('makes room only for whole deliveries, except in an empty batch', () => {
		const batch = new EventBatch({ waitMs: 1000, maxEvents: 10 });
		expect(batch.hasRoomFor(25)).toBe(true);
		batch.add(events(8));
		expect(batch.hasRoomFor(2)).toBe(true);
		expect(batch.hasRoomFor(3)).toBe(false);
	});
});

describe('joinBatch', () => {
	it('makes the first delivery lead and the next ones follow, per trigger', async () => {
		const limits = { waitMs: 200, maxEvents: 100 };
		const leader = joinBatch('wf-a/node-1', events(1), limits);
		const follower = joinBatch('wf-a/node-1', events(1), limits);
		const otherTrigger = joinBatch('wf-a/node-2', events(1), limits);

		expect(leader.leads).toBe(true);
		expect(follower.leads).toBe(false);
		expect(follower.batch).toBe(leader.batch);
		expect(otherTrigger.leads).toBe(true);
		expect(otherTrigger.batch).not.toBe(leader.batch);
		expect(heldNow()).toEqual({ events: 3, deliveries: 3 });

		expect(await leader.batch.collect()).toHaveLength(2);
		expect(await otherTrigger.batch.collect()).toHaveLength(1);
		leader.batch.settle('started');
		otherTrigger.batch.settle('not_started');
		expect(await follower.batch.outcome).toBe('started');
		await otherTrigger.batch.outcome;
		expect(heldNow()).toEqual({ events: 0, deliveries: 0 });
	});

	it('starts the next batch when a delivery would overflow the open one, and closes the open one at once', async () => {
		const limits = { waitMs: 60_000, maxEvents: 10 };
		const first = joinBatch('wf-b/node', events(7), limits);
		const overflowing = joinBatch('wf-b/node', events(5), limits);

		expect(overflowing.leads).toBe(true);
		expect(overflowing.batch).not.toBe(first.batch);
		expect(await first.batch.collect()).toHaveLength(7);
		first.batch.settle('started');
		overflowing.batch.close();
		expect(await overflowing.batch.collect()).toHaveLength(5);
		overflowing.batch.settle('started');
		await Promise.all([first.batch.outcome, overflowing.batch.outcome]);
	});

	it('holds at most MAX_HELD_DELIVERIES deliveries at once', async () => {
		const limits = { waitMs: 60_000, maxEvents: 1000 };
		const joined = [];
		while (canHold(1)) joined.push(joinBatch(`wf-c/node-${joined.length}`, events(1), limits));

		expect(joined).toHaveLength(MAX_HELD_DELIVERIES);
		for (const { batch } of joined) batch.settle('started');
		await Promise.all(joined.map(({ batch }) => batch.outcome));
		expect(canHold(1)).toBe(true);
	});
});
