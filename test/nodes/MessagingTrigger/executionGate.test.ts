import type { INodeExecutionData, WorkflowExecuteMode } from 'n8n-workflow';

import {
	heldExecutions,
	holdExecution,
	itemsOnceAnswered,
	MAX_GATES,
	type GateContext,
} from '../../../nodes/MessagingTrigger/executionGate';
import { deliveryEvent, postDelivery } from './support/signedDelivery';
import { startTriggerHarness, type TriggerHarness } from './support/triggerHarness';

const SECRET = 'whsec_execution_gate_41c7';

function contextOf(mode: WorkflowExecuteMode, workflowId = 'wf-1', nodeId = 'node-1'): GateContext {
	return {
		getWorkflow: () => ({ id: workflowId }),
		getNode: () => ({ id: nodeId }),
		getMode: () => mode,
	};
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
		holdExecution(contextOf('webhook'), 'evt_a', answered.promise);
		let passed: INodeExecutionData[] | undefined;
		const gate = itemsOnceAnswered(contextOf('webhook'), itemsOf('evt_a', 'evt_b')).then(
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
		holdExecution(contextOf('webhook'), 'evt_c', Promise.resolve(false));
		expect(await itemsOnceAnswered(contextOf('webhook'), itemsOf('evt_c'))).toEqual([]);
	});

	it('passes items on at once where nothing holds them: another process, another trigger, a test event', async () => {
		const never = new Promise<boolean>(() => undefined);
		const before = heldExecutions();
		holdExecution(contextOf('webhook', 'wf-1', 'node-1'), 'evt_d', never);
		holdExecution(contextOf('manual'), 'evt_e', never);

		expect(await itemsOnceAnswered(contextOf('webhook'), itemsOf('evt_x'))).toEqual(
			itemsOf('evt_x'),
		);
		expect(
			await itemsOnceAnswered(contextOf('webhook', 'wf-1', 'node-2'), itemsOf('evt_d')),
		).toEqual(itemsOf('evt_d'));
		expect(await itemsOnceAnswered(contextOf('manual'), itemsOf('evt_e'))).toEqual(
			itemsOf('evt_e'),
		);
		// Only the production gate was held, and nothing above took it.
		expect(heldExecutions()).toBe(before + 1);
	});

	it('forgets the oldest gates no execution took, past its cap', async () => {
		const context = contextOf('webhook', 'wf-cap');
		// Refused deliveries: a gate still held passes nothing, a forgotten one passes its items.
		for (let index = 0; index < MAX_GATES + 5; index++)
			holdExecution(context, `evt_cap_${index}`, Promise.resolve(false));
		expect(heldExecutions()).toBe(MAX_GATES);

		expect(await itemsOnceAnswered(context, itemsOf('evt_cap_4'))).toEqual(itemsOf('evt_cap_4'));
		expect(await itemsOnceAnswered(context, itemsOf('evt_cap_5'))).toEqual([]);
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
