import { judgeStep } from '../../../../nodes/Messaging/throughput/stepJudgement';

describe('judgeStep', () => {
	const step = { fromLimit: 20, fromRate: 1 };

	test('the first slow round trip after a step only waits for a second', () => {
		expect(judgeStep(step, 30, 2, 150)).toEqual({
			kind: 'awaitSecond',
			step: { fromLimit: 20, fromRate: 1, firstRate: 2, firstRoundTrip: 150 },
		});
	});

	test('a step of half pays when the mean rate of its two round trips rose by an eighth', () => {
		const awaiting = { ...step, firstRate: 1.1, firstRoundTrip: 160 };
		expect(judgeStep(awaiting, 30, 1.15, 150)).toEqual({
			kind: 'paid',
			rate: 1.15,
			roundTrip: 150,
		});
		expect(judgeStep(awaiting, 30, 1.14, 150)).toEqual({ kind: 'unpaid' });
	});

	test('a stall in one of the two round trips lowers their mean, and never the rate kept', () => {
		const stalled = { ...step, firstRate: 0.6, firstRoundTrip: 400 };
		expect(judgeStep(stalled, 30, 1.5, 180)).toEqual({ kind: 'unpaid' });
		const afterStall = { ...step, firstRate: 1.6, firstRoundTrip: 170 };
		expect(judgeStep(afterStall, 30, 1.2, 240)).toEqual({
			kind: 'paid',
			rate: 1.6,
			roundTrip: 170,
		});
	});

	test('a small probe still needs the floor of 4 % more', () => {
		const probe = { fromLimit: 100, fromRate: 1, firstRate: 1.03, firstRoundTrip: 100 };
		expect(judgeStep(probe, 110, 1.03, 100)).toEqual({ kind: 'unpaid' });
		expect(judgeStep(probe, 110, 1.05, 100)).toMatchObject({ kind: 'paid' });
	});
});
