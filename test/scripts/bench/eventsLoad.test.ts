import { CASES, SETTINGS, loadOf } from '../../../scripts/bench/events/cases';

const caseOf = (key: string) => CASES.find((eventCase) => eventCase.key === key)!;
const [defaults] = SETTINGS;

describe('the events bench paces its cases from the floor', () => {
	it('offers the trigger alone the floor as measured so far', () => {
		expect(loadOf(defaults, caseOf('atFloorRate'), [23.6]).eventsPerSecond).toBe(23);
	});

	it('offers 0.8 of the slower half, wherever it came, since n8n no longer reaches the faster one', () => {
		expect(loadOf(defaults, caseOf('belowFloorRate'), [23.6, 19.4]).eventsPerSecond).toBe(15);
		expect(loadOf(defaults, caseOf('belowFloorRate'), [19.4, 23.6]).eventsPerSecond).toBe(15);
	});

	it('offers 0.8 of the trigger alone instead when it ran slower than either half of the floor', () => {
		expect(loadOf(defaults, caseOf('belowFloorRate'), [23.3, 25.5], [21.0]).eventsPerSecond).toBe(
			16,
		);
		expect(loadOf(defaults, caseOf('belowFloorRate'), [19.4, 23.6], [21.0]).eventsPerSecond).toBe(
			15,
		);
	});

	it('refuses to pace a case before the floor is measured', () => {
		expect(() => loadOf(defaults, caseOf('belowFloorRate'))).toThrow(/measure the floor first/);
	});

	it('leaves an unpaced case unpaced', () => {
		expect(loadOf(defaults, caseOf('webhook'), [23.6]).eventsPerSecond).toBeUndefined();
	});
});
