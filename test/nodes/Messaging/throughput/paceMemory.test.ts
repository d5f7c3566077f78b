import {
	PACE_KEPT_MS,
	PACES_KEPT,
	PaceMemory,
	paceSlotFor,
	RunPace,
	startingSearch,
	type LearntPace,
} from '../../../../nodes/Messaging/throughput/paceMemory';

const pace = (limit: number, learntAt: number): LearntPace => ({
	limit,
	slowStart: false,
	fastestRoundTrip: 200,
	learntAt,
});

describe('PaceMemory', () => {
	test('recalls a pace until it is older than PACE_KEPT_MS, then forgets it', () => {
		const memory = new PaceMemory();
		memory.remember('a', pace(40, 1000));
		expect(memory.recall('a', 1000 + PACE_KEPT_MS)?.limit).toBe(40);
		expect(memory.recall('a', 1001 + PACE_KEPT_MS)).toBeUndefined();
		// Forgotten, not merely hidden: an earlier clock reading does not bring it back.
		expect(memory.recall('a', 1000)).toBeUndefined();
	});

	test(`keeps the ${PACES_KEPT} most recently used providers`, () => {
		const memory = new PaceMemory();
		for (let key = 0; key <= PACES_KEPT; key++) memory.remember(String(key), pace(key + 1, 0));
		expect(memory.recall('0', 0)).toBeUndefined();
		expect(memory.recall('1', 0)?.limit).toBe(2);
		expect(memory.recall(String(PACES_KEPT), 0)?.limit).toBe(PACES_KEPT + 1);
	});
});

describe('paceSlotFor', () => {
	test('one slot per credential and base URL, shared by every run in the process', () => {
		const slot = (id: string, baseUrl: string) =>
			paceSlotFor({ baseUrl, credentialOptions: { credentialsDecrypted: { id } } });
		expect(slot('c1', 'https://a.test').key).toBe(slot('c1', 'https://a.test').key);
		expect(slot('c1', 'https://a.test').key).not.toBe(slot('c2', 'https://a.test').key);
		expect(slot('c1', 'https://a.test').key).not.toBe(slot('c1', 'https://b.test').key);
		expect(slot('c1', 'https://a.test').memory).toBe(slot('c2', 'https://b.test').memory);
	});
});

describe('RunPace and startingSearch', () => {
	test('a run starts at the learnt pace within its bound, or at 10 in slow start without one', () => {
		const memory = new PaceMemory();
		const run = new RunPace({ memory, key: 'k' });
		expect(startingSearch(100, true, run, 0)).toEqual({
			limit: 10,
			slowStart: true,
			fastestRoundTrip: Number.POSITIVE_INFINITY,
		});
		run.keep({ limit: 150, slowStart: true, fastestRoundTrip: 20 }, 10);
		expect(startingSearch(100, true, new RunPace({ memory, key: 'k' }), 20)).toEqual({
			limit: 100,
			slowStart: true,
			fastestRoundTrip: 20,
		});
	});

	test('a dropped run forgets the pace and keeps nothing more', () => {
		const memory = new PaceMemory();
		const run = new RunPace({ memory, key: 'k' });
		run.keep({ limit: 40, slowStart: false, fastestRoundTrip: 20 }, 0);
		run.drop();
		expect(memory.recall('k', 0)).toBeUndefined();
		run.keep({ limit: 30, slowStart: false, fastestRoundTrip: 20 }, 1);
		expect(memory.recall('k', 1)).toBeUndefined();
	});
});
