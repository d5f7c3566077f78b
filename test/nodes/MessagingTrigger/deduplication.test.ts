import { RECENT_EVENT_ID_CAPACITY, RecentEventIds } from '../../../nodes/MessagingTrigger/deduplication';

describe('RecentEventIds', () => {
	it('remembers what was added', () => {
		const recent = new RecentEventIds([]);
		recent.add('evt_1');
		expect(recent.has('evt_1')).toBe(true);
		expect(recent.has('evt_2')).toBe(false);
	});

	it('forgets the oldest ids beyond its capacity', () => {
		const recent = new RecentEventIds([], 3);
		for (const id of ['a', 'b', 'c', 'd']) recent.add(id);
		expect(recent.toJSON()).toEqual(['b', 'c', 'd']);
		expect(recent.has('a')).toBe(false);
	});

	it('moves a re-added id to the newest end', () => {
		const recent = new RecentEventIds(['a', 'b', 'c'], 3);
		recent.add('a');
		recent.add('d');
		expect(recent.toJSON()).toEqual(['c', 'a', 'd']);
	});

	it('round-trips through its JSON form, as static data stores it', () => {
		const first = new RecentEventIds([]);
		first.add('evt_1');
		first.add('evt_2');
		const restored = new RecentEventIds(JSON.parse(JSON.stringify(first)));
		expect(restored.has('evt_1')).toBe(true);
		expect(restored.toJSON()).toEqual(['evt_1', 'evt_2']);
	});

	it('keeps only the newest ids of stored data larger than its capacity', () => {
		expect(new RecentEventIds(['a', 'b', 'c', 'd'], 2).toJSON()).toEqual(['c', 'd']);
	});

	it.each([undefined, null, 'evt_1', { evt_1: true }])('starts empty from unusable stored data %p', (stored) => {
		expect(new RecentEventIds(stored).size).toBe(0);
	});

	it('ignores non-string entries in stored data', () => {
		expect(new RecentEventIds(['a', 1, null, 'b']).toJSON()).toEqual(['a', 'b']);
	});

	it('stays bounded at the default capacity of 1,000 ids', () => {
		const recent = new RecentEventIds([]);
		for (let index = 0; index < RECENT_EVENT_ID_CAPACITY + 500; index++) recent.add(`evt_${index}`);
		expect(recent.size).toBe(1000);
		expect(recent.has('evt_499')).toBe(false);
		expect(recent.has('evt_500')).toBe(true);
	});
});
