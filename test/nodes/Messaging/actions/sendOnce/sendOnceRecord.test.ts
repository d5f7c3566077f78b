import type { INode } from 'n8n-workflow';

import {
	SendOnceRecord,
	type ProcessedValues,
} from '../../../../../nodes/Messaging/actions/sendOnce/sendOnceRecord';
import { InMemoryProcessedData } from '../../../../helpers/processedDataStore';

const HOUR = 3_600_000;

/** The node's view of n8n's store, over the store's own semantics, for one workflow and node. */
function valuesOf(store: InMemoryProcessedData): ProcessedValues {
	const context = { workflow: { id: 'wf', active: true }, node: { id: 'node' } as INode };
	return {
		async checkAndRecord(values, maxEntries) {
			const result = await store.checkProcessedAndRecord(values, 'node', context, {
				mode: 'entries',
				maxEntries,
			});
			return new Set(result.processed.map(String));
		},
		async remove(values, maxEntries) {
			await store.removeProcessed(values, 'node', context, { mode: 'entries', maxEntries });
		},
	};
}

function setUp(start = Date.UTC(2026, 10, 26, 9)) {
	const store = new InMemoryProcessedData();
	let now = start;
	const clock = { now: () => now, advance: (ms: number) => (now += ms) };
	const record = (messages = 10) =>
		new SendOnceRecord(valuesOf(store), 24 * HOUR, messages, () => clock.now());
	return { store, clock, record };
}

describe('the record of acknowledged sends', () => {
	test('a first run finds nothing and costs one write before sending', async () => {
		const { store, record } = setUp();
		expect(await record().acknowledgedBefore(['a', 'b'])).toEqual(new Set());
		expect(store.calls).toEqual([{ kind: 'check', values: 4, rowAfter: 4 }]);
	});

	test('a run that died: what was acknowledged and written is skipped, the rest is sent again', async () => {
		const { record } = setUp();
		const first = record();
		await first.acknowledgedBefore(['a', 'b', 'c']);
		first.acknowledged('a');
		await first.flush();
		first.acknowledged('b'); // acknowledged, but the worker died before it was written
		// no finish(): the process is gone

		const rerun = record();
		expect(await rerun.acknowledgedBefore(['a', 'b', 'c'])).toEqual(new Set(['a']));
		// b and c were claimed and not confirmed: the look-up's own writes are taken back, so if this run dies too,
		// the next one still sends them.
		const third = record();
		expect(await third.acknowledgedBefore(['a', 'b', 'c'])).toEqual(new Set(['a']));
	});

	test('a message counts as sent for at least half the window and never past it', async () => {
		const { clock, record } = setUp(Date.UTC(2026, 10, 26, 11, 59));
		const first = record();
		await first.acknowledgedBefore(['a']);
		first.acknowledged('a');
		await first.finish();

		clock.advance(12 * HOUR);
		expect(await record().acknowledgedBefore(['a'])).toEqual(new Set(['a']));
		clock.advance(12 * HOUR);
		expect(await record().acknowledgedBefore(['a'])).toEqual(new Set());
	});

	test('acknowledgements are written together, one write at a time, and all by finish', async () => {
		const { store, clock, record } = setUp();
		const run = record(3_000);
		await run.acknowledgedBefore(Array.from({ length: 3_000 }, (_, i) => `m${i}`));
		for (let i = 0; i < 2_500; i += 1) {
			run.acknowledged(`m${i}`);
			if (i % 100 === 0) clock.advance(10);
		}
		expect(await run.finish()).toBeUndefined();
		const writes = store.calls.slice(1);
		expect(writes.map((call) => call.values)).toEqual([1_000, 1_000, 500]);

		const rerun = await record().acknowledgedBefore(['m0', 'm2499', 'm2500']);
		expect(rerun).toEqual(new Set(['m0', 'm2499']));
	});

	test('a failed write is reported by finish and does not stop later writes', async () => {
		const { store, record } = setUp();
		const run = record();
		await run.acknowledgedBefore(['a', 'b']);
		const check = store.checkProcessedAndRecord.bind(store);
		let failures = 1;
		jest.spyOn(store, 'checkProcessedAndRecord').mockImplementation(async (...args) => {
			if (failures-- > 0) throw new Error('database is locked');
			return await check(...args);
		});
		run.acknowledged('a');
		void run.flush();
		run.acknowledged('b');
		expect(await run.finish()).toEqual(new Error('database is locked'));
		expect(await record().acknowledgedBefore(['a', 'b'])).toEqual(new Set(['b']));
	});
});
