import {
	EventIdMemory,
	eventIdMemoryOf,
	REMEMBERED_EVENT_IDS,
	RecentEventIds,
	REMEMBERED_TRIGGERS,
	rememberedTriggerCount,
	SAVED_EVENT_IDS,
	type SavedEventIds,
} from '../../../nodes/MessagingTrigger/deduplication';
import type { EventIdsSave } from '../../../nodes/MessagingTrigger/savedEventIds';

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

	it('keeps only the newest ids of stored data larger than its capacity', () => {
		expect(new RecentEventIds(['a', 'b', 'c', 'd'], 2).toJSON()).toEqual(['c', 'd']);
	});

	it.each([undefined, null, 'evt_1', { evt_1: true }])(
		'starts empty from unusable stored data %p',
		(stored) => {
			expect(new RecentEventIds(stored).size).toBe(0);
		},
	);

	it('ignores non-string entries in stored data', () => {
		expect(new RecentEventIds(['a', 1, null, 'b']).toJSON()).toEqual(['a', 'b']);
	});

	it('lists the newest ids, oldest first, and forgets a deleted one', () => {
		const recent = new RecentEventIds(['a', 'b', 'c', 'd']);
		recent.delete('c');
		expect(recent.newest(2)).toEqual(['b', 'd']);
		expect(recent.newest(10)).toEqual(['a', 'b', 'd']);
	});
});

/** What n8n saves, read back: the ids travel as one JSON text. */
function serialised(save: EventIdsSave): { recentEventIds: string[]; recentEventIdsStamp: string } {
	const saved = JSON.parse(JSON.stringify(save.fields)) as {
		recentEventIds: string;
		recentEventIdsStamp: string;
	};
	return { ...saved, recentEventIds: JSON.parse(saved.recentEventIds) as string[] };
}

describe('EventIdMemory', () => {
	it('lets exactly one of any number of claims of one event through', () => {
		const memory = new EventIdMemory();
		const claims = Array.from({ length: 5 }, () => memory.claim('evt_1'));
		expect(claims.filter(Boolean)).toHaveLength(1);
		expect(claims[0]).toBe(true);
	});

	it('lets an event be claimed again once its claim is released', () => {
		const memory = new EventIdMemory();
		expect(memory.claim('evt_1')).toBe(true);
		memory.release('evt_1');
		expect(memory.claim('evt_1')).toBe(true);
		expect(memory.claim('evt_1')).toBe(false);
	});

	it(`remembers ${REMEMBERED_EVENT_IDS} ids, then forgets the oldest`, () => {
		const memory = new EventIdMemory();
		for (let index = 0; index < REMEMBERED_EVENT_IDS + 10; index++)
			expect(memory.claim(`evt_${index}`)).toBe(true);
		expect(memory.claim('evt_10')).toBe(false);
		expect(memory.claim(`evt_${REMEMBERED_EVENT_IDS + 9}`)).toBe(false);
		expect(memory.claim('evt_9')).toBe(true);
	});

	it(`saves its newest ${SAVED_EVENT_IDS} ids as they are when n8n serialises the save, not when it was written`, () => {
		const memory = new EventIdMemory();
		for (let index = 0; index < SAVED_EVENT_IDS + 5; index++) memory.claim(`evt_${index}`);
		const earlier = memory.newSave();
		const later = memory.newSave();
		memory.claim('evt_new');

		const savedEarlier = serialised(earlier);
		expect(savedEarlier.recentEventIds).toHaveLength(SAVED_EVENT_IDS);
		expect(savedEarlier.recentEventIds[0]).toBe('evt_6');
		expect(savedEarlier.recentEventIds.at(-1)).toBe('evt_new');
		expect(serialised(later)).toEqual(savedEarlier);

		memory.claim('evt_newer');
		expect(serialised(earlier).recentEventIdsStamp).not.toBe(savedEarlier.recentEventIdsStamp);
	});

	it("leaves another batch's ids out of a save until n8n has confirmed that batch's execution", async () => {
		const memory = new EventIdMemory();
		for (const id of ['evt_done', 'evt_held', 'evt_mine']) memory.claim(id);
		let confirmHeld: (started: boolean) => void = () => undefined;
		const held = new Promise<boolean>((resolve) => (confirmHeld = resolve));
		memory.awaitConfirmation(['evt_held'], held);
		memory.awaitConfirmation(['evt_mine'], new Promise<boolean>(() => undefined));
		const save = memory.newSave(['evt_mine']);

		const whileHeld = serialised(save).recentEventIds;
		confirmHeld(true);
		await held;

		expect(whileHeld).toEqual(['evt_done', 'evt_mine']);
		expect(serialised(save).recentEventIds).toEqual(['evt_done', 'evt_held', 'evt_mine']);
	});

	it("saves a batch in every save once n8n serialised that batch's own save, which it does after storing its execution", () => {
		const memory = new EventIdMemory();
		for (const id of ['evt_x', 'evt_y']) memory.claim(id);
		memory.awaitConfirmation(['evt_x'], new Promise<boolean>(() => undefined));
		memory.awaitConfirmation(['evt_y'], new Promise<boolean>(() => undefined));
		const ownOfX = memory.newSave(['evt_x']);
		const ownOfY = memory.newSave(['evt_y']);

		// Handed to n8n, X's own save serialised before it was armed: n8n has not started to save it.
		serialised(ownOfX);
		const beforeXWasSaved = serialised(ownOfY);
		ownOfX.arm();
		serialised(ownOfX);
		const afterXWasSaved = serialised(ownOfY);

		expect(beforeXWasSaved.recentEventIds).toEqual(['evt_y']);
		expect(afterXWasSaved.recentEventIds).toEqual(['evt_x', 'evt_y']);
		// Another process that merged the first must not skip the second as a version it has.
		expect(afterXWasSaved.recentEventIdsStamp).not.toBe(beforeXWasSaved.recentEventIdsStamp);
	});

	it('knows whether n8n serialised a save after it was armed, and copies nothing of the memory in a structured clone', () => {
		const memory = new EventIdMemory();
		memory.claim('evt_a');
		const save = memory.newSave();
		serialised(save);
		expect(save.serialised).toBe(false);
		expect(structuredClone(save.fields)).toEqual({ recentEventIds: {}, recentEventIdsStamp: {} });
		save.arm();
		expect(save.serialised).toBe(false);
		serialised(save);
		expect(save.serialised).toBe(true);
	});

	it("merges another process's saved ids, so their retries are duplicates here", () => {
		const elsewhere = new EventIdMemory();
		elsewhere.claim('evt_a');
		elsewhere.claim('evt_b');
		const saved = serialised(elsewhere.newSave());

		const here = new EventIdMemory();
		here.merge(saved);
		expect(here.claim('evt_a')).toBe(false);
		expect(here.claim('evt_b')).toBe(false);
		expect(here.claim('evt_c')).toBe(true);
	});

	it('merges each saved version once, so a released claim is not brought back by the same version', () => {
		const memory = new EventIdMemory();
		const saved = { recentEventIds: ['evt_a'], recentEventIdsStamp: 'other:1' };
		memory.merge(saved);
		memory.release('evt_a');
		memory.merge(saved);
		expect(memory.claim('evt_a')).toBe(true);
	});

	it('saves the ids as one JSON text, which n8n does not walk id by id on every webhook request', () => {
		const memory = new EventIdMemory();
		memory.claim('evt_a');
		memory.claim('evt_b');
		const saved = JSON.parse(JSON.stringify(memory.newSave().fields)) as SavedEventIds;
		expect(saved.recentEventIds).toBe('["evt_a","evt_b"]');

		const other = new EventIdMemory();
		other.merge(saved);
		expect(other.claim('evt_b')).toBe(false);
		expect(other.claim('evt_c')).toBe(true);
	});

	it('merges nothing from saved ids that are not a JSON list', () => {
		const memory = new EventIdMemory();
		memory.merge({ recentEventIds: 'not json', recentEventIdsStamp: 'other:1' });
		memory.merge({ recentEventIds: '{"evt_a":1}', recentEventIdsStamp: 'other:2' });
		expect(memory.claim('evt_a')).toBe(true);
	});

	it('merges ids saved before stamps existed (an array alone)', () => {
		const memory = new EventIdMemory();
		memory.merge({ recentEventIds: ['evt_old'] });
		expect(memory.claim('evt_old')).toBe(false);
	});

	it('does not merge back its own save', () => {
		const memory = new EventIdMemory();
		memory.claim('evt_a');
		const saved = serialised(memory.newSave());
		memory.release('evt_a');
		memory.merge(saved);
		expect(memory.claim('evt_a')).toBe(true);
		expect(new EventIdMemory().claim('evt_a')).toBe(true);
	});
});

describe('eventIdMemoryOf', () => {
	it('gives each trigger node of each workflow one memory for the process', () => {
		const memory = eventIdMemoryOf('wf-dedup-test', 'node-1');
		expect(eventIdMemoryOf('wf-dedup-test', 'node-1')).toBe(memory);
		expect(eventIdMemoryOf('wf-dedup-test', 'node-2')).not.toBe(memory);
		expect(eventIdMemoryOf('wf-dedup-other', 'node-1')).not.toBe(memory);
	});

	it(`keeps the memories of the ${REMEMBERED_TRIGGERS} triggers used last, so deactivated workflows do not accumulate`, () => {
		const kept = eventIdMemoryOf('wf-dedup-kept', 'node-1');
		const dropped = eventIdMemoryOf('wf-dedup-dropped', 'node-1');
		for (let index = 0; index < REMEMBERED_TRIGGERS * 2; index++) {
			eventIdMemoryOf(`wf-dedup-bulk-${index}`, 'node-1');
			if (index % 10 === 0) eventIdMemoryOf('wf-dedup-kept', 'node-1');
		}
		expect(rememberedTriggerCount()).toBe(REMEMBERED_TRIGGERS);
		expect(eventIdMemoryOf('wf-dedup-kept', 'node-1')).toBe(kept);
		expect(eventIdMemoryOf('wf-dedup-dropped', 'node-1')).not.toBe(dropped);
	});
});
