import { sleep } from 'n8n-workflow';

import {
	CONFIRM_EVERY_MS,
	foundOnce,
	KEEP_CHECKING_MS,
	RECHECK_AFTER_MS,
	recordEvents,
} from '../../../nodes/MessagingTrigger/recordedEvents';
import type { ProcessedValues } from '../../../nodes/shared/processedValues';
import { loadedInAnotherProcess } from '../../helpers/anotherProcess';
import { InMemoryProcessedData, processedValuesOf } from '../../helpers/processedDataStore';

let scopes = 0;
/** A trigger of its own: no test finds another's kept ids. */
const freshScope = () => `wf-recorded-${++scopes}/node/`;

/** The module as another worker process loads it: its own kept ids, only n8n's store shared. */
function otherWorker(): typeof import('../../../nodes/MessagingTrigger/recordedEvents') {
	return loadedInAnotherProcess(() =>
		jest.requireActual<typeof import('../../../nodes/MessagingTrigger/recordedEvents')>(
			'../../../nodes/MessagingTrigger/recordedEvents',
		),
	);
}

/** n8n's store, each call's start time and values counted. */
function countedStore(rows = new InMemoryProcessedData()) {
	const inner = processedValuesOf(rows);
	const calls: Array<{ at: number; values: string[] }> = [];
	const store: ProcessedValues = {
		async checkAndRecord(values, maxEntries) {
			calls.push({ at: Date.now(), values });
			return await inner.checkAndRecord(values, maxEntries);
		},
		remove: inner.remove,
	};
	return { rows, store, calls };
}

describe('the events a process recorded in n8n’s store', () => {
	it('one check at a time per trigger: executions recording at once share a call, and each event is new to one of them', async () => {
		const { store, calls } = countedStore();
		const scope = freshScope();
		const answers = await Promise.all(
			Array.from({ length: 20 }, (_, index) =>
				recordEvents(scope, [`evt_${index}`, `evt_${index + 1}`], store),
			),
		);
		const newTo = answers.map((held, index) =>
			[`evt_${index}`, `evt_${index + 1}`].filter((id) => !held.has(id)),
		);
		expect(newTo.flat().sort()).toEqual(Array.from({ length: 21 }, (_, i) => `evt_${i}`).sort());
		// The first call goes at once; the other 19 executions' checks wait for it and go together.
		expect(calls).toHaveLength(2);
	});

	it('waits until a check at least RECHECK_AFTER_MS after the write finds the events, with one call for every execution waiting', async () => {
		const { store, calls } = countedStore();
		const scope = freshScope();
		const started = Date.now();
		await Promise.all(
			Array.from({ length: 10 }, async (_, index) => {
				const held = await recordEvents(scope, [`evt_w${index}`], store);
				expect(held.size).toBe(0);
				expect(await foundOnce(scope, [`evt_w${index}`])).toBeUndefined();
			}),
		);
		expect(Date.now() - started).toBeGreaterThanOrEqual(RECHECK_AFTER_MS);
		// Two first checks (one, then the nine queued behind it), and a check again for each.
		expect(calls.length).toBeLessThanOrEqual(4);
	});

	it('writes an id another process’s write dropped again at the next check, though it had been found once: a later copy is held', async () => {
		const { rows, store } = countedStore();
		const scope = freshScope();
		await recordEvents(scope, ['evt_late'], store);
		expect(await foundOnce(scope, ['evt_late'])).toBeUndefined();
		// A busy worker's check read the row before the write and writes it back long after.
		rows.overwriteWithout(['evt_late']);
		await sleep(1.5 * CONFIRM_EVERY_MS);
		expect(await otherWorker().recordEvents(scope, ['evt_late', 'evt_new'], store)).toEqual(
			new Set(['evt_late']),
		);
	});

	it('an id dropped again and again is written again each time, every RECHECK_AFTER_MS', async () => {
		const { rows, store, calls } = countedStore();
		const scope = freshScope();
		await recordEvents(scope, ['evt_contested'], store);
		for (let drop = 0; drop < 4; drop++) {
			rows.overwriteWithout(['evt_contested']);
			await sleep(RECHECK_AFTER_MS + 50);
		}
		await sleep(RECHECK_AFTER_MS + 50);
		const rewrites = calls.filter((call) => call.values.includes('evt_contested'));
		expect(rewrites.length).toBeGreaterThanOrEqual(5);
		expect(await otherWorker().recordEvents(scope, ['evt_contested'], store)).toEqual(
			new Set(['evt_contested']),
		);
	});

	it('stops checking an id once a check KEEP_CHECKING_MS after its last write found it', async () => {
		const { store, calls } = countedStore();
		const scope = freshScope();
		const recordedAt = Date.now();
		await recordEvents(scope, ['evt_done'], store);
		await sleep(KEEP_CHECKING_MS + CONFIRM_EVERY_MS + RECHECK_AFTER_MS);
		const checks = calls.map((call) => call.at - recordedAt);
		// The first write, one at RECHECK_AFTER_MS, then one every CONFIRM_EVERY_MS up to KEEP_CHECKING_MS.
		expect(checks.length).toBe(
			2 + Math.ceil((KEEP_CHECKING_MS - RECHECK_AFTER_MS) / CONFIRM_EVERY_MS),
		);
		expect(checks.at(-1)).toBeGreaterThanOrEqual(KEEP_CHECKING_MS);
		expect(checks.at(-1)).toBeLessThan(KEEP_CHECKING_MS + CONFIRM_EVERY_MS);
	});

	it('a check that fails tells the executions waiting, and stops checking their ids', async () => {
		const { store: working } = countedStore();
		let failing = false;
		const store: ProcessedValues = {
			async checkAndRecord(values, maxEntries) {
				if (failing) throw new Error('connection terminated');
				return await working.checkAndRecord(values, maxEntries);
			},
			remove: working.remove,
		};
		const scope = freshScope();
		await recordEvents(scope, ['evt_f'], store);
		failing = true;
		expect(await foundOnce(scope, ['evt_f'])).toEqual(new Error('connection terminated'));
		failing = false;
		expect(await foundOnce(scope, ['evt_f'])).toBeUndefined();
	});
});
