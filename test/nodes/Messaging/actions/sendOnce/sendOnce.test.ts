import { randomUUID } from 'node:crypto';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { INodeExecutionData } from 'n8n-workflow';

import * as sendPrepared from '../../../../../nodes/Messaging/actions/sendPrepared';
import { processedDataStore } from '../../../../helpers/processedDataStore';
import { formFields, useSandbox } from '../../../../helpers/sandboxForTests';
import { loadWorkflowFixture, runWorkflow } from '../../../../helpers/runWorkflow';
import type { RunWorkflowOptions } from '../../../../helpers/runWorkflow';

const sandbox = useSandbox();
const workflow = loadWorkflowFixture('sms-send');
const HOUR = 3_600_000;

function rows(count: number, extra: (i: number) => Record<string, unknown> = () => ({})) {
	return Array.from({ length: count }, (_, i) => ({
		json: {
			phone: `+91982${String(i).padStart(7, '0')}`,
			name: `Customer ${i}`,
			orderId: `O-${i}`,
			eta: 'Fri',
			...extra(i),
		},
	}));
}

/** One workflow, run as often as a test likes: its id is what a re-run keeps. */
function campaign(options: Partial<RunWorkflowOptions> = {}) {
	const workflowId = `send-once-${randomUUID()}`;
	return async (more: Partial<RunWorkflowOptions> = {}) =>
		await runWorkflow({
			workflow,
			credentials: { baseUrl: sandbox().url, apiKey: sandbox().apiKey },
			workflowId,
			// The fixture's node is at version 1, where send once is off unless set.
			parameters: { Messaging: { options: { sendOnceHours: 24 } } },
			...options,
			...more,
		});
}

const acceptedSends = () =>
	sandbox()
		.requests()
		.filter((request) => request.response.status === 200);
const acceptedPhones = () => acceptedSends().map((request) => formFields(request.rawBody).to);
const skipped = (items: INodeExecutionData[] = []) => items.filter((item) => item.json.skipped);

function hintsOf(result: Awaited<ReturnType<ReturnType<typeof campaign>>>) {
	return (result.run.data.resultData.runData.Messaging?.[0]?.hints ?? []).map(
		(hint) => hint.message,
	);
}

afterEach(() => {
	jest.restoreAllMocks();
	sandbox().configure({ idempotencyKeys: 'honour' });
});

describe('a re-run sends nothing twice, by default', () => {
	test.each(['honour', 'ignore'] as const)(
		'a campaign run again (a new execution, mode retry) sends none again, the provider %sing keys',
		async (idempotencyKeys) => {
			sandbox().configure({ idempotencyKeys });
			const run = campaign({ items: rows(6) });
			const first = await run();
			expect(first.error).toBeUndefined();
			const again = await run({ mode: 'retry' });

			expect(again.error).toBeUndefined();
			expect(acceptedPhones()).toHaveLength(6);
			expect(new Set(acceptedPhones()).size).toBe(6);
			expect(skipped(again.outputs.Messaging)).toHaveLength(6);
			expect(again.outputs.Messaging[2]).toEqual({
				json: { message_id: null, status: 'skipped', channel: 'sms', skipped: true },
				pairedItem: { item: 2 },
			});
			expect(hintsOf(again)).toEqual([
				expect.stringMatching(/^6 of 6 messages were not sent again: .* within the last 24 hours/),
			]);
			expect(hintsOf(first)).toEqual([]);
		},
	);

	test('a Retry after an ordinary error part-way (a 401, then fixed) sends only the rest', async () => {
		const run = campaign({
			items: rows(5),
			parameters: { Messaging: { options: { sendOnceHours: 24, maxConcurrency: 1 } } },
		});
		sandbox().addFault({
			match: { to: '+919820000003' },
			action: {
				status: 401,
				bodyKind: 'json',
				body: JSON.stringify({ error: { code: 'invalid_api_key', message: 'Invalid API key.' } }),
			},
		});
		const failed = await run();
		expect(failed.error?.message).toMatch(/401/);
		expect(acceptedPhones()).toEqual(['+919820000000', '+919820000001', '+919820000002']);

		sandbox().clearFaults();
		const retried = await run({ mode: 'retry' });
		expect(retried.error).toBeUndefined();
		expect(acceptedPhones()).toEqual([
			'+919820000000',
			'+919820000001',
			'+919820000002',
			'+919820000003',
			'+919820000004',
		]);
		expect(retried.outputs.Messaging.map((item) => item.json.skipped ?? false)).toEqual([
			true,
			true,
			true,
			false,
			false,
		]);
		expect(retried.outputs.Messaging[3].json.message_id).toMatch(/^msg_/);
	});

	test('volatile upstream fields: without a key every run is new; with a key built from stable fields, not', async () => {
		const now = (i: number) => ({ now: new Date(Date.now() + i).toISOString() });
		const run = campaign();
		await run({ items: rows(3, now) });
		await run({ items: rows(3, (i) => now(i + 1000)) });
		// The input item is the reason; a field that changes on every run makes every run a new reason.
		expect(acceptedSends()).toHaveLength(6);

		sandbox().clearRequests();
		const keyed = campaign({
			parameters: {
				Messaging: { options: { sendOnceHours: 24, idempotencyKey: '=order-{{ $json.orderId }}' } },
			},
		});
		await keyed({ items: rows(3, now) });
		const again = await keyed({ items: rows(3, (i) => now(i + 1000)) });
		expect(acceptedSends()).toHaveLength(3);
		expect(skipped(again.outputs.Messaging)).toHaveLength(3);
		expect(acceptedSends()[0].headers['idempotency-key']).toBe('order-O-0');
	});
});

describe('legitimate repeats still go out', () => {
	test('the inbound auto-reply answers every new inbound message with the same words', async () => {
		const inbound = (id: string) => [
			{
				json: {
					phone: '+919812345678',
					name: 'Asha',
					orderId: 'reply',
					eta: 'now',
					message_id: id,
				},
			},
		];
		const run = campaign();
		await run({ items: inbound('wamid.1') });
		await run({ items: inbound('wamid.2') });
		await run({ items: inbound('wamid.3') });
		// The same inbound message delivered twice (a webhook retried) is answered once.
		const redelivered = await run({ items: inbound('wamid.3') });

		expect(acceptedSends()).toHaveLength(3);
		const bodies = new Set(acceptedSends().map((request) => request.rawBody));
		expect(bodies.size).toBe(1);
		expect(skipped(redelivered.outputs.Messaging)).toHaveLength(1);
	});

	test('an hourly reminder from the same sheet goes out every hour with Send Once Within 1 hour, and once within it', async () => {
		const start = Date.UTC(2026, 10, 26, 9, 0, 5);
		const clock = jest.spyOn(Date, 'now');
		const run = campaign({
			items: rows(2),
			parameters: { Messaging: { options: { sendOnceHours: 1 } } },
		});
		clock.mockReturnValue(start);
		await run();
		clock.mockReturnValue(start + 20 * 60_000);
		const rerun = await run({ mode: 'retry' });
		clock.mockReturnValue(start + HOUR);
		const nextHour = await run();
		clock.mockReturnValue(start + 2 * HOUR);
		await run();

		expect(skipped(rerun.outputs.Messaging)).toHaveLength(2);
		expect(skipped(nextHour.outputs.Messaging)).toHaveLength(0);
		expect(acceptedSends()).toHaveLength(6);
	});

	test('with the default window the same reminder an hour later is held back and says so', async () => {
		const start = Date.UTC(2026, 10, 26, 9, 0, 5);
		const clock = jest.spyOn(Date, 'now');
		const run = campaign({ items: rows(2) });
		clock.mockReturnValue(start);
		await run();
		clock.mockReturnValue(start + HOUR);
		const later = await run();
		clock.mockReturnValue(start + 24 * HOUR);
		const nextDay = await run();

		expect(skipped(later.outputs.Messaging)).toHaveLength(2);
		expect(hintsOf(later)[0]).toMatch(/Options > Send Once Within/);
		expect(skipped(nextDay.outputs.Messaging)).toHaveLength(0);
		expect(acceptedSends()).toHaveLength(4);
	});

	test.each([
		[1.1, 'a node added today sends once with no setting', 1],
		[1, 'a node saved at version 1 sends every time unless set', 2],
	])('version %s: %s', async (typeVersion, _title, sends) => {
		const atVersion = {
			...workflow,
			nodes: workflow.nodes.map((node) =>
				node.name === 'Messaging' ? { ...node, typeVersion } : node,
			),
		};
		const run = campaign({ workflow: atVersion, items: rows(1), parameters: {} });
		await run();
		const again = await run();
		expect(acceptedSends()).toHaveLength(sends);
		expect(skipped(again.outputs.Messaging)).toHaveLength(2 - sends);
	});

	test('Send Once Within 0 sends every time, without an Idempotency-Key', async () => {
		const run = campaign({
			items: rows(2),
			parameters: { Messaging: { options: { sendOnceHours: 0 } } },
		});
		await run();
		await run();
		expect(acceptedSends()).toHaveLength(4);
		expect(acceptedSends().map((request) => request.headers['idempotency-key'])).toEqual([
			undefined,
			undefined,
			undefined,
			undefined,
		]);
	});

	test('identical rows in one run are each sent, and each only once across runs', async () => {
		const twins = [...rows(1), ...rows(1)];
		const run = campaign({ items: twins });
		await run();
		const again = await run();
		expect(acceptedSends()).toHaveLength(2);
		expect(new Set(acceptedSends().map((request) => request.headers['idempotency-key'])).size).toBe(
			2,
		);
		expect(skipped(again.outputs.Messaging)).toHaveLength(2);
	});
});

describe('the provider key', () => {
	test('every send carries a key that the same message keeps across runs, unique per workflow', async () => {
		await campaign({ items: rows(2) })();
		const [firstKey, secondKey] = acceptedSends().map(
			(request) => request.headers['idempotency-key'],
		);
		sandbox().clearRequests();
		await campaign({
			items: rows(2),
			parameters: { Messaging: { options: { sendOnceHours: 0.01 } } },
		})();
		const otherWorkflow = acceptedSends().map((request) => request.headers['idempotency-key']);

		expect(firstKey).toMatch(/^n8n-[\w-]{43}$/);
		expect(secondKey).not.toBe(firstKey);
		expect(otherWorkflow).not.toContain(firstKey);
	});

	test('a provider that honours keys replays what a lost record missed: no second message', async () => {
		const run = campaign({ items: rows(3) });
		await run();
		// n8n's record lost (a cleared database): the provider's key still holds.
		processedDataStore().rows.clear();
		const again = await run();
		expect(again.error).toBeUndefined();
		expect(acceptedSends()).toHaveLength(6);
		expect(
			new Set(acceptedSends().map((request) => JSON.stringify(request.response.body))).size,
		).toBe(3);
		expect(skipped(again.outputs.Messaging)).toHaveLength(0);
	});
});

describe('bad keys are refused before anything is sent', () => {
	test('a key expression that resolves to empty text names the item and the fix', async () => {
		const run = campaign({
			items: rows(3, (i) => ({ orderId: i === 1 ? '' : `O-${i}` })),
			parameters: {
				Messaging: { options: { sendOnceHours: 24, idempotencyKey: '={{ $json.orderId }}' } },
			},
		});
		const { error } = await run();
		expect(error?.message).toBe("Item 1: 'Options > Idempotency Key' is empty for this item");
		expect(error?.description).toMatch(/e\.g\. \{\{ \$json\.orderId \}\}, or remove the option/);
		expect(sandbox().requests()).toHaveLength(0);
	});

	test('an over-long key names the item and the fix', async () => {
		const run = campaign({
			items: rows(2, (i) => ({ orderId: i === 1 ? 'x'.repeat(300) : 'ok' })),
			parameters: {
				Messaging: { options: { sendOnceHours: 24, idempotencyKey: '={{ $json.orderId }}' } },
			},
		});
		const { error } = await run();
		expect(error?.message).toMatch(/^Item 1: 'Options > Idempotency Key' .*255/);
		expect(error?.description).toMatch(/HTTP header/);
		expect(sandbox().requests()).toHaveLength(0);
	});

	test('with continue on fail the empty-key item fails alone and the others are sent', async () => {
		const run = campaign({
			items: rows(3, (i) => ({ orderId: i === 1 ? ' ' : `O-${i}` })),
			parameters: {
				Messaging: { options: { sendOnceHours: 24, idempotencyKey: '={{ $json.orderId }}' } },
			},
			continueOnFail: true,
		});
		const { outputs } = await run();
		expect(outputs.Messaging[1].json.error).toBe(
			"Item 1: 'Options > Idempotency Key' is empty for this item",
		);
		expect(acceptedPhones()).toEqual(['+919820000000', '+919820000002']);
	});
});

describe('memory', () => {
	v8.setFlagsFromString('--expose-gc');
	const collectGarbage = vm.runInNewContext('gc') as () => void;
	// A function of its own: a loop variable left in the spy's frame would hold the last send.
	const weakRefsTo = (values: Array<object | undefined>) =>
		values.map((value) => new WeakRef(value!));

	test.each([24, 0])(
		'a prepared send is let go once sent, Send Once Within %d h',
		async (hours) => {
			const sendAll = sendPrepared.sendAll;
			let refs: Array<WeakRef<object>> = [];
			let heldWhenSent = -1;
			jest.spyOn(sendPrepared, 'sendAll').mockImplementation(async (...args) => {
				refs = weakRefsTo(args[1]);
				const sent = await sendAll(...args);
				// A WeakRef keeps its target to the end of the job that made or read it.
				await new Promise((resolve) => setImmediate(resolve));
				collectGarbage();
				heldWhenSent = refs.filter((ref) => ref.deref() !== undefined).length;
				return sent;
			});
			const { error } = await campaign({
				items: rows(40),
				parameters: { Messaging: { options: { sendOnceHours: hours } } },
			})();

			expect(error).toBeUndefined();
			expect(acceptedPhones()).toHaveLength(40);
			expect(refs).toHaveLength(40);
			expect(heldWhenSent).toBe(0);
		},
	);
});
