import { judgeStep } from '../../../../nodes/Messaging/throughput/stepJudgement';

describe('judgeStep', () => {
	const step = { fromLimit: 20, fromRate: 1 };

	test('the first slow round trip after a step only waits for a second', () => {
		expect(judgeStep(step, 30, 2)).toEqual({
			kind: 'awaitSecond',
			step: { fromLimit: 20, fromRate: 1, firstRate: 2 },
		});
	});

	test('a step of half pays when the mean rate of its two round trips rose by an eighth', () => {
		const awaiting = { ...step, firstRate: 1.1 };
		expect(judgeStep(awaiting, 30, 1.15)).toEqual({ kind: 'paid' });
		expect(judgeStep(awaiting, 30, 1.14)).toEqual({ kind: 'unpaid' });
	});

	test('a stall in one of the two round trips lowers their mean', () => {
		const stalled = { ...step, firstRate: 0.6 };
		expect(judgeStep(stalled, 30, 1.5)).toEqual({ kind: 'unpaid' });
		expect(judgeStep({ ...step, firstRate: 1.6 }, 30, 1.2)).toEqual({ kind: 'paid' });
	});

	test('a small probe still needs the floor of 4 % more', () => {
		const probe = { fromLimit: 100, fromRate: 1, firstRate: 1.03 };
		expect(judgeStep(probe, 110, 1.03)).toEqual({ kind: 'unpaid' });
		expect(judgeStep(probe, 110, 1.05)).toEqual({ kind: 'paid' });
	});
});
