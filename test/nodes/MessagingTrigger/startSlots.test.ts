import { MAX_HELD_DELIVERIES } from '../../../nodes/MessagingTrigger/eventBatches';
import {
	canWaitForSlot,
	START_SLOTS,
	startSlotsNow,
	takeStartSlot,
} from '../../../nodes/MessagingTrigger/startSlots';

/** Takes a slot for each name, recording the order in which they were granted. */
function takeAll(names: string[], granted: string[]): Array<Promise<() => void>> {
	return names.map((name) =>
		takeStartSlot().then((release) => {
			granted.push(name);
			return release;
		}),
	);
}

async function settle(): Promise<void> {
	for (let turn = 0; turn < 5; turn++) await Promise.resolve();
}

describe('start slots', () => {
	it('grants START_SLOTS at once, then one per release, to the longest waiting first', async () => {
		const names = Array.from({ length: START_SLOTS + 3 }, (_, index) => `delivery-${index}`);
		const granted: string[] = [];
		const taking = takeAll(names, granted);
		await settle();
		expect(granted).toEqual(names.slice(0, START_SLOTS));
		expect(startSlotsNow()).toEqual({ taken: START_SLOTS, waiting: 3 });

		(await taking[1])();
		await settle();
		expect(granted).toEqual(names.slice(0, START_SLOTS + 1));
		expect(startSlotsNow()).toEqual({ taken: START_SLOTS, waiting: 2 });

		const releases = await Promise.all([taking[0], ...taking.slice(2, START_SLOTS)]);
		for (const release of releases) release();
		const all = await Promise.all(taking);
		expect(granted).toEqual(names);
		// Those released above stay released: a second call frees nothing.
		for (const release of all) release();
		expect(startSlotsNow()).toEqual({ taken: 0, waiting: 0 });
	});

	it('frees a slot once however often its release is called', async () => {
		const releases = await Promise.all(takeAll(['a', 'b'], []));
		releases[0]();
		releases[0]();
		expect(startSlotsNow()).toEqual({ taken: 1, waiting: 0 });
		releases[1]();
		expect(startSlotsNow()).toEqual({ taken: 0, waiting: 0 });
	});

	it('turns deliveries away once as many wait as the process may hold', async () => {
		const names = Array.from({ length: START_SLOTS + MAX_HELD_DELIVERIES }, (_, i) => `d${i}`);
		const taking = takeAll(names.slice(0, -1), []);
		await settle();
		expect(canWaitForSlot()).toBe(true);
		taking.push(...takeAll(names.slice(-1), []));
		await settle();
		expect(canWaitForSlot()).toBe(false);

		for (let index = 0; index < taking.length; index++) (await taking[index])();
		expect(startSlotsNow()).toEqual({ taken: 0, waiting: 0 });
		expect(canWaitForSlot()).toBe(true);
	});
});
