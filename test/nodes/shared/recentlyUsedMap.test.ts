import { RecentlyUsedMap } from '../../../nodes/shared/recentlyUsedMap';

describe('RecentlyUsedMap', () => {
	it('keeps the entries used last, up to its capacity', () => {
		const map = new RecentlyUsedMap<string, number>(2);
		map.set('a', 1);
		map.set('b', 2);
		expect(map.get('a')).toBe(1);
		map.set('c', 3);

		expect(map.size).toBe(2);
		expect(map.get('b')).toBeUndefined();
		expect(map.get('a')).toBe(1);
		expect(map.get('c')).toBe(3);
	});

	it('replaces the value of a key without growing, and forgets a deleted key', () => {
		const map = new RecentlyUsedMap<string, number>(2);
		map.set('a', 1);
		map.set('a', 2);
		expect(map.size).toBe(1);
		expect(map.get('a')).toBe(2);
		map.delete('a');
		expect(map.get('a')).toBeUndefined();
	});

	it('creates a value for a key it lacks, once, and keeps it as used last', () => {
		const map = new RecentlyUsedMap<string, number[]>(2);
		let made = 0;
		const create = () => [++made];
		const first = map.getOrCreate('a', create);
		expect(map.getOrCreate('a', create)).toBe(first);
		expect(made).toBe(1);
		map.set('b', [0]);
		map.getOrCreate('a', create);
		map.set('c', [0]);
		expect(map.get('b')).toBeUndefined();
		expect(map.get('a')).toBe(first);
	});
});
