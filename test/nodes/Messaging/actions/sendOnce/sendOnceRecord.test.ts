import { SendOnceRecord } from '../../../../../nodes/Messaging/actions/sendOnce/sendOnceRecord';
import { InMemoryProcessedData, processedValuesOf } from '../../../../helpers/processedDataStore';

const HOUR = 3_600_000;

/** Lets the record's write, which runs between acknowledgements in a real run, finish. */
const settled = async () => await new Promise((resolve) => setImmediate(resolve));

const messageIds = (count: number) => Array.from({ length: count }, (_, i) => `m${i}`);

/** Acknowledges `m0`, `m1`, … one every `stepMs` of the clock, letting the record's writes finish every `settleEvery`. */
async function acknowledgeEach(
	run: SendOnceRecord,
	clock: { advance: (ms: number) => number },
	{ count, stepMs, settleEvery }: { count: number; stepMs: number; settleEvery: number },
) {
	for (let i = 0; i < count; i += 1) {
		run.acknowledged(`m${i}`);
		clock.advance(stepMs);
		if (i % settleEvery === 0) await settled();
	}
}

/** Makes each write of `store` take `writeMs` of the clock; answers how many values have landed. */
function writesTaking(
	writeMs: number,
	store: InMemoryProcessedData,
	clock: { now: () => number },
): () => number {
	let durable = 0;
	const check = store.checkProcessedAndRecord.bind(store);
	jest.spyOn(store, 'checkProcessedAndRecord').mockImplementation(async (values, ...rest) => {
		const start = clock.now();
		while (clock.now() < start + writeMs) await settled();
		const output = await check(values, ...rest);
		durable += values.length;
		return output;
	});
	return () => durable;
}

function setUp(start = Date.UTC(2026, 10, 26, 9)) {
	const store = new InMemoryProcessedData();
	let now = start;
	const clock = { now: () => now, advance: (ms: number) => (now += ms) };
	const record = (messages = 10) =>
		new SendOnceRecord(processedValuesOf(store), 24 * HOUR, messages, () => clock.now());
	return { store, clock, record };
}

describe('the record of acknowledged sends', () => {
	test('a first run finds nothing and costs one write before sending', async () => {
		const { store, record } = setUp();
		expect(await record().acknowledgedBefore(['a', 'b'])).toEqual(new Set());
		expect(store.calls).toEqual([{ kind: 'check', values: 2, rowAfter: 2 }]);
	});

	test('a run that died: what was acknowledged and written is skipped, the rest is sent again', async () => {
		const { record } = setUp();
		const first = record();
		await first.acknowledgedBefore(['a', 'b', 'c']);
		first.acknowledged('a');
		await first.flush();
		first.acknowledged('b'); // acknowledged, but the worker died before it was written
		// no finish(): the process is gone

		const rerun = record();
		expect(await rerun.acknowledgedBefore(['a', 'b', 'c'])).toEqual(new Set(['a']));
		// b and c were claimed and not confirmed: the look-up's own writes are taken back, so if this run dies too,
		// the next one still sends them.
		const third = record();
		expect(await third.acknowledgedBefore(['a', 'b', 'c'])).toEqual(new Set(['a']));
	});

	test('a message counts as sent for at least half the window and never past it', async () => {
		const { clock, record } = setUp(Date.UTC(2026, 10, 26, 11, 59));
		const first = record();
		await first.acknowledgedBefore(['a']);
		first.acknowledged('a');
		await first.finish();

		clock.advance(12 * HOUR);
		expect(await record().acknowledgedBefore(['a'])).toEqual(new Set(['a']));
		clock.advance(12 * HOUR);
		expect(await record().acknowledgedBefore(['a'])).toEqual(new Set());
	});

	test('acknowledgements are written together, one write at a time, and all by finish', async () => {
		const { store, clock, record } = setUp();
		const run = record(3_000);
		await run.acknowledgedBefore(messageIds(3_000));
		for (let i = 0; i < 2_500; i += 1) {
			run.acknowledged(`m${i}`);
			if (i % 100 === 0) {
				clock.advance(10);
				await settled();
			}
		}
		expect(await run.finish()).toBeUndefined();
		const writes = store.calls.slice(1);
		expect(writes.map((call) => call.values)).toEqual([1_000, 1_000, 500]);

		const rerun = await record().acknowledgedBefore(['m0', 'm2499', 'm2500']);
		expect(rerun).toEqual(new Set(['m0', 'm2499']));
	});

	test('a bigger record is written in bigger groups: 500 ms up to 5,000 values, up to 2 s from 20,000', async () => {
		const { store, clock, record } = setUp();
		const run = record(20_000);
		await run.acknowledgedBefore(messageIds(20_000));
		const writeTimes: number[] = [];
		const check = store.checkProcessedAndRecord.bind(store);
		jest.spyOn(store, 'checkProcessedAndRecord').mockImplementation(async (...args) => {
			writeTimes.push(clock.now());
			return await check(...args);
		});
		// 20,000 acknowledgements, one every 5 ms: at 500 ms a group that would be 100 writes.
		await acknowledgeEach(run, clock, { count: 20_000, stepMs: 5, settleEvery: 10 });
		expect(await run.finish()).toBeUndefined();
		// finish() writes what is left at once.
		const gaps = writeTimes.slice(1, -1).map((at, i) => at - writeTimes[i]);
		// The record starts at 20,000 values (the claims), so every group is four times longer.
		expect(Math.min(...gaps)).toBeGreaterThanOrEqual(2_000);
		expect(Math.max(...gaps)).toBeLessThanOrEqual(2_050);
		expect(await record().acknowledgedBefore(['m0', 'm19999'])).toEqual(new Set(['m0', 'm19999']));
	});

	test('a small record is written every 250 ms: shorter groups would cost a fast run more than its writes save', async () => {
		const { store, clock, record } = setUp();
		const run = record(600);
		await run.acknowledgedBefore(messageIds(600));
		// 50 a second.
		await acknowledgeEach(run, clock, { count: 600, stepMs: 20, settleEvery: 1 });
		await run.finish();
		const groups = store.calls.slice(1).map((call) => call.values);
		// 600 claims, up to 1,200 values: in proportion 60 to 120 ms, so the 250 ms floor, at 50 a second: 13
		// acknowledgements a group, the one that finds the group due included (writes here take no time); the first
		// group also holds the one acknowledged the moment its clock started.
		const [first, ...rest] = groups.slice(0, -1);
		expect(first).toBe(14);
		expect(new Set(rest)).toEqual(new Set([13]));
		expect(groups.reduce((sum, values) => sum + values, 0)).toBe(600);
	});

	test('a write that takes time: a dead worker leaves unwritten that write and one group, not a write more', async () => {
		const { store, clock, record } = setUp();
		const run = record(600);
		await run.acknowledgedBefore(messageIds(600));
		const WRITE_MS = 80;
		const durable = writesTaking(WRITE_MS, store, clock);
		// 50 a second, as the queue-mode check sends; groups of 250 ms.
		let mostUnwritten = 0;
		for (let i = 0; i < 600; i += 1) {
			run.acknowledged(`m${i}`);
			clock.advance(20);
			await settled();
			mostUnwritten = Math.max(mostUnwritten, i + 1 - durable());
		}
		const finished = run.finish();
		// The clock moves on until the writes land.
		while (durable() < 600) {
			clock.advance(20);
			await settled();
		}
		await finished;
		// A group's 250 ms, then the 80 ms write, at 20 ms an acknowledgement: 17. With the next group's clock started
		// when a write ended, 21.
		expect(mostUnwritten).toBeLessThanOrEqual(17);
	});

	// Writes slower than a group (250 ms at this size), as under a loaded database; each time moves where the last
	// write falls against the run's end.
	test.each([270, 290, 310, 330, 350, 370])(
		'a provider that stops answering the last sends, writes of %i ms: what waits unwritten is what arrived since the last write started',
		async (writeMs) => {
			const { store, clock, record } = setUp();
			const run = record(600);
			await run.acknowledgedBefore(messageIds(600));
			const durable = writesTaking(writeMs, store, clock);
			const answered = 595;
			const waitAWhile = async () => {
				for (let waited = 0; durable() < answered && waited < 1_500; waited += 20) {
					clock.advance(20);
					await settled();
				}
			};
			// 50 a second; a worker killed while the node waits for the last 5 answers loses what is unwritten.
			await acknowledgeEach(run, clock, { count: answered, stepMs: 20, settleEvery: 1 });
			await waitAWhile();
			// A write's time of acknowledgements and the one that found the next group due. Held back for the last write
			// once fewer were to come than were held (f0dc1bc), with 120 ms groups: 11 at 170 ms writes, 19 at 230.
			expect(answered - durable()).toBeLessThanOrEqual(Math.ceil(writeMs / 20) + 1);
			const finished = run.finish();
			await waitAWhile();
			await finished;
			expect(durable()).toBe(answered);
		},
	);

	test('a failed write is reported by finish and does not stop later writes', async () => {
		const { store, record } = setUp();
		const run = record();
		await run.acknowledgedBefore(['a', 'b']);
		const check = store.checkProcessedAndRecord.bind(store);
		let failures = 1;
		jest.spyOn(store, 'checkProcessedAndRecord').mockImplementation(async (...args) => {
			if (failures-- > 0) throw new Error('database is locked');
			return await check(...args);
		});
		run.acknowledged('a');
		void run.flush();
		run.acknowledged('b');
		expect(await run.finish()).toEqual(new Error('database is locked'));
		expect(await record().acknowledgedBefore(['a', 'b'])).toEqual(new Set(['b']));
	});
});
