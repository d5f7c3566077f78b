import { BoundedLog } from '../../sandbox/bounded-log';

function logOf(count: number, capacity = 100): BoundedLog<{ index: number }> {
	const log = new BoundedLog<{ index: number }>(capacity);
	for (let index = 0; index < count; index++) log.add({ index });
	return log;
}

const indexes = (log: BoundedLog<{ index: number }>) => log.list().map((entry) => entry.index);
const range = (from: number, to: number) =>
	Array.from({ length: to - from }, (_, offset) => from + offset);

describe('the sandbox bounded log', () => {
	it('keeps every entry in arrival order up to its capacity', () => {
		expect(indexes(logOf(100))).toEqual(range(0, 100));
	});

	it('past its capacity lists only the newest, in order, whether or not it trimmed yet', () => {
		// 105: held, not trimmed yet; 111: trimmed back to the capacity; 1,000: trimmed many times.
		for (const count of [101, 105, 110, 111, 1_000])
			expect(indexes(logOf(count))).toEqual(range(count - 100, count));
	});

	it('never holds more than its capacity and a tenth however many arrive', () => {
		const log = new BoundedLog<{ index: number }>(100);
		let most = 0;
		for (let index = 0; index < 1_000; index++) {
			log.add({ index });
			most = Math.max(most, log.held());
		}
		expect(most).toBe(110);
	});

	it('lists copies: changing one changes nothing held', () => {
		const log = logOf(3);
		log.list()[0].index = 99;
		expect(indexes(log)).toEqual([0, 1, 2]);
	});

	it('forgets everything when cleared, then keeps what comes after', () => {
		const log = logOf(150);
		log.clear();
		log.add({ index: 7 });
		expect(indexes(log)).toEqual([7]);
	});
});
