import type { INodeExecutionData, WorkflowExecuteMode } from 'n8n-workflow';

import {
	heldExecutions,
	holdExecution,
	itemsOnceAnswered,
	MAX_CARRIED_EVENTS,
	MAX_GATES,
	type ExecutionGateContext,
} from '../../../nodes/MessagingTrigger/executionGate';
import { eventIdMemoryOf } from '../../../nodes/MessagingTrigger/deduplication';
import type { ProcessedValues } from '../../../nodes/shared/processedValues';
import { loadedInAnotherProcess } from '../../helpers/anotherProcess';
import { InMemoryProcessedData, processedValuesOf } from '../../helpers/processedDataStore';
import { deliveryEvent, postDelivery } from './support/signedDelivery';
import { startTriggerHarness, type TriggerHarness } from './support/triggerHarness';

const SECRET = 'whsec_execution_gate_41c7';

function contextOf(
	mode: WorkflowExecuteMode,
	workflowId = 'wf-1',
	nodeId = 'node-1',
): ExecutionGateContext {
	return {
		getWorkflow: () => ({ id: workflowId }),
		getNode: () => ({ id: nodeId }),
		getMode: () => mode,
		logger: { warn: jest.fn() },
	};
}

/** n8n's deduplication store, one per test: no test reads another's records. */
let store: ProcessedValues;
beforeEach(() => {
	store = processedValuesOf(new InMemoryProcessedData());
});

let triggers = 0;
/** A trigger of its own: no test finds another's hand-overs or claims. */
function triggerNamed(prefix: string): ExecutionGateContext {
	return contextOf('webhook', `${prefix}-${++triggers}`);
}

/** The gate as another worker process loads it: its own memory, only n8n's store shared. */
function otherWorkerGate(): typeof import('../../../nodes/MessagingTrigger/executionGate') {
	return loadedInAnotherProcess(() =>
		jest.requireActual<typeof import('../../../nodes/MessagingTrigger/executionGate')>(
			'../../../nodes/MessagingTrigger/executionGate',
		),
	);
}

/** The execution's first step, as the node runs it. */
async function firstStep(
	context: ExecutionGateContext,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	return await itemsOnceAnswered(context, items, store);
}

function itemsOf(...ids: string[]): INodeExecutionData[] {
	return ids.map((event_id) => ({ json: { event_id } }));
}

function deferred(): { promise: Promise<boolean>; resolve: (ok: boolean) => void } {
	let resolve: (ok: boolean) => void = () => undefined;
	const promise = new Promise<boolean>((settle) => (resolve = settle));
	return { promise, resolve };
}

describe('the execution gate', () => {
	it('passes an execution’s items on only once their delivery was answered 2xx', async () => {
		const answered = deferred();
		holdExecution(contextOf('webhook'), ['evt_a', 'evt_b'], answered.promise);
		let passed: INodeExecutionData[] | undefined;
		const gate = firstStep(contextOf('webhook'), itemsOf('evt_a', 'evt_b')).then(
			(items) => (passed = items),
		);
		await new Promise((resolve) => setImmediate(resolve));
		expect(passed).toBeUndefined();

		answered.resolve(true);
		await gate;
		expect(passed).toEqual(itemsOf('evt_a', 'evt_b'));
		expect(heldExecutions()).toBe(0);
	});

	it('passes none when n8n answered the delivery with an error: its retries carry the events', async () => {
		holdExecution(contextOf('webhook'), ['evt_c'], Promise.resolve(false));
		expect(await firstStep(contextOf('webhook'), itemsOf('evt_c'))).toEqual([]);
	});

	it('passes items on without waiting for an answer where nothing holds them: another process, another trigger, a test event, a Retry', async () => {
		const never = new Promise<boolean>(() => undefined);
		const before = heldExecutions();
		holdExecution(contextOf('webhook', 'wf-1', 'node-1'), ['evt_d'], never);
		holdExecution(contextOf('manual'), ['evt_e'], never);

		expect(await firstStep(contextOf('webhook'), itemsOf('evt_x'))).toEqual(itemsOf('evt_x'));
		expect(await firstStep(contextOf('webhook', 'wf-1', 'node-2'), itemsOf('evt_d'))).toEqual(
			itemsOf('evt_d'),
		);
		expect(await firstStep(contextOf('manual'), itemsOf('evt_e'))).toEqual(itemsOf('evt_e'));
		expect(await firstStep(contextOf('retry'), itemsOf('evt_d'))).toEqual(itemsOf('evt_d'));
		// Only the production hand-over was held, and nothing above took it.
		expect(heldExecutions()).toBe(before + 1);
	});

	it('forgets the oldest answered hand-overs no execution took, whole, past its caps; never one n8n has not answered', async () => {
		const context = contextOf('webhook', 'wf-cap');
		const unanswered = deferred();
		holdExecution(context, ['evt_cap_unanswered'], unanswered.promise);
		// Refused deliveries: a hand-over still held passes nothing, a forgotten one passes its items.
		const count = MAX_GATES + 5;
		for (let index = 0; index < count; index++) {
			holdExecution(context, [`evt_cap_${index}`], Promise.resolve(false));
			await Promise.resolve();
		}
		expect(heldExecutions()).toBe(MAX_GATES);

		expect(await firstStep(context, itemsOf('evt_cap_0'))).toEqual(itemsOf('evt_cap_0'));
		expect(await firstStep(context, itemsOf(`evt_cap_${count - 1}`))).toEqual([]);

		const batch = (index: number) =>
			Array.from({ length: 100 }, (_, item) => `evt_big_${index}_${item}`);
		// With the unanswered one, the 200th batch goes one event past the cap.
		for (let index = 0; index < MAX_CARRIED_EVENTS / 100; index++) {
			holdExecution(context, batch(index), Promise.resolve(false));
			await Promise.resolve();
		}
		const oldest = await firstStep(context, itemsOf(...batch(0)));
		const next = await firstStep(context, itemsOf(...batch(1)));
		expect([oldest.length, next.length]).toEqual([100, 0]);

		const waiting = firstStep(context, itemsOf('evt_cap_unanswered'));
		unanswered.resolve(false);
		expect(await waiting).toEqual([]);
	});
});

/**
 * n8n 2.x stores an execution as new before it starts it; stopped in between, it answers the delivery with an error
 * (so the sender retries the events) and, started again in regular mode, runs the execution it stored.
 */
describe('an execution n8n stored but never started, run when n8n starts again', () => {
	const freshTrigger = () => triggerNamed('wf-recovered');

	it('run before the retries: passes every event on, and a retry of one is then a duplicate', async () => {
		const context = freshTrigger();
		expect(await firstStep(context, itemsOf('evt_r1', 'evt_r2'))).toEqual(
			itemsOf('evt_r1', 'evt_r2'),
		);
		const memory = eventIdMemoryOf(context.getWorkflow().id!, context.getNode().id);
		expect([memory.claim('evt_r1'), memory.claim('evt_r2'), memory.claim('evt_r3')]).toEqual([
			false,
			false,
			true,
		]);
	});

	it('run after a retry carried some of its events: passes on only the others, and the retry runs its own', async () => {
		const context = freshTrigger();
		const answered = deferred();
		holdExecution(context, ['evt_s1', 'evt_s2', 'evt_s4'], answered.promise);

		expect(await firstStep(context, itemsOf('evt_s1', 'evt_s2', 'evt_s3'))).toEqual(
			itemsOf('evt_s3'),
		);
		answered.resolve(true);
		expect(await firstStep(context, itemsOf('evt_s1', 'evt_s2', 'evt_s4'))).toEqual(
			itemsOf('evt_s1', 'evt_s2', 'evt_s4'),
		);
	});

	it('run while a retry’s batch is still collecting (claimed, not handed over): leaves that event to the retry', async () => {
		const context = freshTrigger();
		const memory = eventIdMemoryOf(context.getWorkflow().id!, context.getNode().id);
		// What a delivery does before its batch is handed over (triage, then claimsAwaitingConfirmation).
		memory.claim('evt_u1');
		memory.awaitConfirmation(['evt_u1'], deferred().promise);

		expect(await firstStep(context, itemsOf('evt_u1', 'evt_u2'))).toEqual(itemsOf('evt_u2'));
	});

	it.each([
		['answered 2xx', true, 2, 0],
		['refused', false, 0, 0],
	])(
		'a retry carrying exactly its events, %s: the first execution to run takes the retry’s hand-over, the second passes none',
		async (_label, ok, first, second) => {
			const context = freshTrigger();
			holdExecution(context, ['evt_t1', 'evt_t2'], Promise.resolve(ok));

			const recovered = await firstStep(context, itemsOf('evt_t1', 'evt_t2'));
			const retried = await firstStep(context, itemsOf('evt_t1', 'evt_t2'));
			expect([recovered.length, retried.length]).toEqual([first, second]);
		},
	);
});

/**
 * In queue mode a worker runs every execution, and no hand-over is in its process. A webhook process killed after it
 * queued an execution and before its save leaves the sender's retries nothing to find: another webhook process
 * starts a second execution of the same events, and a worker runs both.
 */
describe('an execution a queue-mode worker runs (no hand-over in its process)', () => {
	const freshTrigger = () => triggerNamed('wf-worker');

	it('passes on only the events no execution recorded first in n8n’s store', async () => {
		const context = freshTrigger();
		expect(await firstStep(context, itemsOf('evt_w1', 'evt_w2'))).toEqual(
			itemsOf('evt_w1', 'evt_w2'),
		);
		expect(await firstStep(context, itemsOf('evt_w1', 'evt_w2', 'evt_w3'))).toEqual(
			itemsOf('evt_w3'),
		);
	});

	it('another worker process, sharing only the store, passes none of the events a first one ran', async () => {
		const context = freshTrigger();
		expect(await firstStep(context, itemsOf('evt_x1', 'evt_x2'))).toHaveLength(2);
		const otherWorker = otherWorkerGate();
		expect(
			await otherWorker.itemsOnceAnswered(context, itemsOf('evt_x2', 'evt_x1', 'evt_x3'), store),
		).toEqual(itemsOf('evt_x3'));
	});

	it('two executions of the same events at once in one worker: each event runs in one of them', async () => {
		// n8n's store reads the row, then writes it back whole: two checks at once would both find it empty.
		store = processedValuesOf(new InMemoryProcessedData({ readThenWrite: true }));
		const context = freshTrigger();
		const ids = Array.from({ length: 20 }, (_, index) => `evt_y${index}`);
		const runs = await Promise.all([
			firstStep(context, itemsOf(...ids)),
			firstStep(contextOf('webhook', context.getWorkflow().id), itemsOf(...ids.slice(5))),
		]);
		const passed = runs.flat().map((item) => item.json.event_id);
		expect(passed.sort()).toEqual([...ids].sort());
	});

	it('ids another worker’s write dropped from the store are recorded again: a later copy of the events passes none', async () => {
		const rows = new InMemoryProcessedData();
		const inner = processedValuesOf(rows);
		let overwrites = 1;
		store = {
			async checkAndRecord(values, maxEntries) {
				const held = await inner.checkAndRecord(values, maxEntries);
				// Another process read the row before this write and writes it back without these ids.
				if (overwrites-- > 0) rows.rows.clear();
				return held;
			},
			remove: inner.remove,
		};
		const context = freshTrigger();
		expect(await firstStep(context, itemsOf('evt_v1', 'evt_v2'))).toHaveLength(2);
		const otherWorker = otherWorkerGate();
		expect(
			await otherWorker.itemsOnceAnswered(context, itemsOf('evt_v1', 'evt_v2'), store),
		).toEqual([]);
	});

	it('a first check the database refused (two workers inserting the row at once) is tried again, and records', async () => {
		const rows = processedValuesOf(new InMemoryProcessedData());
		let refusals = 1;
		store = {
			async checkAndRecord(values, maxEntries) {
				if (refusals-- > 0) throw new Error('duplicate key value violates unique constraint');
				return await rows.checkAndRecord(values, maxEntries);
			},
			remove: rows.remove,
		};
		const context = freshTrigger();
		expect(await firstStep(context, itemsOf('evt_q1'))).toEqual(itemsOf('evt_q1'));
		expect(await otherWorkerGate().itemsOnceAnswered(context, itemsOf('evt_q1'), store)).toEqual(
			[],
		);
		expect(context.logger.warn).not.toHaveBeenCalled();
	});

	it('a check again that fails keeps the first check’s answer, and says so', async () => {
		const rows = processedValuesOf(new InMemoryProcessedData());
		await rows.checkAndRecord(['evt_p1'], 10);
		let calls = 0;
		store = {
			async checkAndRecord(values, maxEntries) {
				if (calls++ > 0) throw new Error('connection terminated');
				return await rows.checkAndRecord(values, maxEntries);
			},
			remove: rows.remove,
		};
		const context = freshTrigger();
		expect(await firstStep(context, itemsOf('evt_p1', 'evt_p2'))).toEqual(itemsOf('evt_p2'));
		expect(context.logger.warn).toHaveBeenCalledWith(expect.stringContaining('check again'), {
			error: 'connection terminated',
		});
	});

	it('a store that fails passes every event on (at worst a duplicate, never a loss) and says so', async () => {
		store = {
			checkAndRecord: async () => await Promise.reject(new Error('database is locked')),
			remove: async () => undefined,
		};
		const context = freshTrigger();
		expect(await firstStep(context, itemsOf('evt_z1'))).toEqual(itemsOf('evt_z1'));
		expect(context.logger.warn).toHaveBeenCalledWith(
			expect.stringContaining('deduplication store'),
			{ error: 'database is locked' },
		);
	});
});

describe('the execution gate in n8n-core’s WorkflowExecute, over real HTTP', () => {
	const harnesses: TriggerHarness[] = [];

	afterEach(async () => {
		await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
	});

	async function start(typeVersion: number, parameters = {}): Promise<TriggerHarness> {
		const harness = await startTriggerHarness({
			signingSecret: SECRET,
			parameters,
			typeVersion,
			runExecutions: true,
		});
		harnesses.push(harness);
		return harness;
	}

	it.each([
		['one execution per delivery (v1)', 1],
		['a batch (v2)', 2],
	])(
		'%s: n8n starts the execution before it saves the ids, and the events reach the next node only after',
		async (_label, typeVersion) => {
			const harness = await start(typeVersion);
			harness.delaySaves(() => 300);
			const events = [deliveryEvent(), deliveryEvent()];

			const answer = await postDelivery(harness.url, JSON.stringify(events), { secret: SECRET });
			const [run] = await Promise.all(harness.executions);

			expect(answer.status).toBe(200);
			expect(run.items.map((item) => item.json.event_id)).toEqual(events.map((e) => e.event_id));
			expect(harness.saveTimes).toHaveLength(1);
			expect(run.passedAt).toBeGreaterThanOrEqual(harness.saveTimes[0]);
		},
	);

	it('with Drop Duplicate Events off, a repeated event runs again through the execution too', async () => {
		const harness = await start(2, { batchWaitMs: 0, options: { dropDuplicateEvents: false } });
		const body = JSON.stringify(deliveryEvent());

		await postDelivery(harness.url, body, { secret: SECRET });
		await Promise.all(harness.executions);
		await postDelivery(harness.url, body, { secret: SECRET });
		const runs = await Promise.all(harness.executions);

		expect(runs.map((run) => run.items.length)).toEqual([1, 1]);
	});

	it('an execution whose process died before the save passes nothing on', async () => {
		const harness = await start(2);
		harness.dieBeforeNextSave();
		const events = [deliveryEvent(), deliveryEvent()];

		const answer = await postDelivery(harness.url, JSON.stringify(events), {
			secret: SECRET,
		}).catch(() => undefined);
		let settled = false;
		const execution = harness.executions[0].then((run) => {
			settled = true;
			return run;
		});
		await new Promise((resolve) => setTimeout(resolve, 500));

		expect(answer).toBeUndefined();
		expect(settled).toBe(false);
		expect(harness.staticDataSaves()).toBe(0);
		harnesses.splice(0);
		await harness.close();
		expect((await execution).items).toEqual([]);
	});
});
