import {
	PROVIDERS,
	sendOnceReport,
	type Pair,
	type PairBook,
	type Run,
	type Sample,
} from '../../../scripts/bench/scenarios/sendOnce';

function sample(nodeMs: number, peakRssMb: number, failed = 0): Sample {
	return {
		nodeMs,
		peakRssMb,
		failed,
		duplicates: 0,
		workflowMs: nodeMs,
		arrivalSpanMs: nodeMs,
		sendingMs: nodeMs,
		requests: 1000,
		rateLimited: 0,
		p99LatencyMs: 25,
	};
}

const pair = (on: number, off: number, peaks: [number, number] = [500, 500]): Pair => ({
	on: sample(on, peaks[0]),
	off: sample(off, peaks[1]),
});

const fast: Run = { provider: PROVIDERS[0], size: 1000 };

describe('the send-once report', () => {
	it.each([
		{
			// The medians of each side alone would give 1,300 / 1,000 = 1.3: the pairs say the record cost 4 %.
			what: 'targets the median of the ratios paired within each process, and prints them in run order',
			pairs: [pair(1300, 1250), pair(2080, 2000), pair(1020, 1000), pair(1040, 1000)],
			measured: '1.035 × (1.04, 1.04, 1.02, 1.04)',
			holds: true,
		},
		{
			// Whichever case ran first was 10 % slower: 1.10 with send once first, 1 / 1.10 with it second.
			what: 'cancels the first place in a process: each pair of repetitions in both orders counts as one',
			pairs: [pair(1100, 1000), pair(1000, 1100), pair(1100, 1000), pair(1000, 1100)],
			measured: '1.000 × (1.10, 0.91, 1.10, 0.91)',
			holds: true,
		},
		{
			what: 'fails a median above 1.05',
			pairs: [pair(1100, 1000), pair(1060, 1000), pair(1080, 1000), pair(1000, 1000)],
			measured: '1.060 × (1.10, 1.06, 1.08, 1.00)',
			holds: false,
		},
	])('$what', ({ pairs, measured, holds }) => {
		const [check] = sendOnceReport(new Map([['fast/1000', pairs]]), [fast], 2).targets;
		expect(check.measured).toBe(measured);
		expect(check.holds).toBe(holds);
	});

	it('at 10,000 messages at 20 ms, takes the four ratios of each two processes (two rounds each) as one', () => {
		const ratios = [1.08, 1.08, 1.02, 1.02, 1.1, 1.1, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
		const pairs = ratios.map((ratio) => pair(1000 * ratio, 1000));
		const large: Run = { provider: PROVIDERS[0], size: 10_000 };
		const [check] = sendOnceReport(new Map([['fast/10000', pairs]]), [large], 3).targets;
		// Paired round by round instead, the median would read 1.010 ×.
		expect(check.measured).toBe(
			'1.049 × (1.08, 1.08, 1.02, 1.02, 1.10, 1.10, 1.00, 1.00, 1.00, 1.00, 1.00, 1.00)',
		);
		expect(check.holds).toBe(true);
	});

	it('keeps one table row per case with the medians of node time, peak memory and losses', () => {
		const book: PairBook = new Map([
			[
				'fast/1000',
				[pair(1000, 900, [510, 530]), pair(3000, 1100, [520, 540]), pair(2000, 1000, [700, 520])],
			],
		]);
		const rows = sendOnceReport(book, [fast], 3).tables?.[0].rows;
		expect(rows).toEqual([
			['20 ms, unlimited', '1,000', 'Send Once Within 24 h', '2.00', '520', '0'],
			['20 ms, unlimited', '1,000', 'Send Once Within 0', '1.00', '530', '0'],
		]);
	});

	it('covers only the runs measured (BENCH_SEND_ONCE_RUNS)', () => {
		const bucket: Run = { provider: PROVIDERS[1], size: 10_000 };
		const book: PairBook = new Map([['bucket/10000', [pair(100_500, 100_000)]]]);
		const report = sendOnceReport(book, [bucket], 3);
		expect(report.targets).toHaveLength(1);
		expect(report.targets[0].target).toContain('100/s bucket, 10,000 messages');
		expect(report.setup).toContain(
			'repetitions: 12 of 1,000 and 6 of 10,000 messages at 20 ms, unlimited; 2 at 100/s bucket',
		);
	});
});
