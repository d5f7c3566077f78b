import { deliveryEvent, postDelivery } from './support/signedDelivery';
import { startTriggerHarness, type TriggerHarness } from './support/triggerHarness';

const SECRET = 'whsec_trigger_memory_51c0';

/** What the static data n8n saved last holds, as the next process to load it reads it. */
function savedIds(harness: TriggerHarness): string[] {
	const saved = harness.staticData()['node:Messaging Trigger'] as { recentEventIds?: string };
	return saved?.recentEventIds === undefined ? [] : (JSON.parse(saved.recentEventIds) as string[]);
}

function idOf(body: string): string {
	return (JSON.parse(body) as { event_id: string }).event_id;
}

describe('Messaging Trigger event memory, against n8n doubles that save unkindly', () => {
	const harnesses: TriggerHarness[] = [];

	afterEach(async () => {
		await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
	});

	async function start(): Promise<TriggerHarness> {
		const harness = await startTriggerHarness({ signingSecret: SECRET });
		harnesses.push(harness);
		return harness;
	}

	function warnings(harness: TriggerHarness): string[] {
		return harness.logs.filter((entry) => entry.level === 'warn').map((entry) => entry.message);
	}

	/** The trigger checks the save once n8n has answered ('finish'), which the client may see first. */
	async function untilWarned(harness: TriggerHarness): Promise<void> {
		for (let tick = 0; tick < 100 && warnings(harness).length === 0; tick++)
			await new Promise((resolve) => setImmediate(resolve));
	}

	it('keeps every answered id in what n8n saves last, when concurrent saves land in reverse order', async () => {
		const harness = await start();
		const bodies = Array.from({ length: 10 }, () => JSON.stringify(deliveryEvent()));
		// The first delivery to arrive saves last: the order a busy database can give.
		harness.delaySaves((delivery) => (bodies.length - delivery) * 20);

		const answers = await Promise.all(
			bodies.map((body) => postDelivery(harness.url, body, { secret: SECRET })),
		);

		expect(answers.map((answer) => answer.status)).toEqual(bodies.map(() => 200));
		expect(harness.runs).toHaveLength(10);
		expect(harness.staticDataSaves()).toBe(10);
		expect(new Set(savedIds(harness))).toEqual(new Set(bodies.map(idOf)));

		// n8n restarted: a process with an empty memory over what the database holds.
		const restarted = await start();
		restarted.setStaticData(harness.staticData());
		const retries = await Promise.all(
			bodies.map((body) => postDelivery(restarted.url, body, { secret: SECRET })),
		);
		expect(retries.map((retry) => (retry.body as { duplicates: number }).duplicates)).toEqual(
			bodies.map(() => 1),
		);
		expect(restarted.runs).toHaveLength(0);
	});

	it.each([
		['one execution per delivery (v1)', 1, {}],
		['batches of two deliveries (v2)', 2, { batchMaxEvents: 2 }],
	])(
		'%s: saves landing in the reverse of the order n8n serialised them (PostgreSQL’s two connections) still leave every answered id in the database',
		async (_label, typeVersion, parameters) => {
			const harness = await startTriggerHarness({
				signingSecret: SECRET,
				typeVersion,
				parameters,
				runExecutions: true,
			});
			harnesses.push(harness);
			const bodies = Array.from({ length: 10 }, () => JSON.stringify(deliveryEvent()));
			// The first save to be serialised lands last, 30 ms after the next.
			harness.delayLandings((delivery) => (bodies.length - delivery) * 30);

			const answers = await Promise.all(
				bodies.map((body) => postDelivery(harness.url, body, { secret: SECRET })),
			);

			expect(answers.map((answer) => answer.status)).toEqual(bodies.map(() => 200));
			// What another process or a restarted n8n loads holds every id answered.
			expect(new Set(savedIds(harness))).toEqual(new Set(bodies.map(idOf)));
			const passed = (await Promise.all(harness.executions)).flatMap((run) =>
				run.items.map((item) => item.json.event_id),
			);
			expect([...passed].sort()).toEqual(bodies.map(idOf).sort());
			expect(warnings(harness)).toEqual([]);
		},
	);

	it('does not warn when n8n saves as 2.40 does', async () => {
		const harness = await start();
		for (let index = 0; index < 3; index++)
			await postDelivery(harness.url, JSON.stringify(deliveryEvent()), { secret: SECRET });
		await new Promise((resolve) => setTimeout(resolve, 20));

		expect(harness.staticDataSaves()).toBe(3);
		expect(warnings(harness)).toEqual([]);
	});

	it.each([
		[
			'builds its second Workflow after the trigger wrote again',
			(harness: TriggerHarness) => harness.buildSecondWorkflowLate(),
		],
		[
			"no longer saves a webhook's static data",
			(harness: TriggerHarness) => harness.skipStaticDataSaves(),
		],
	])('warns once, naming the n8n version and what it means, when n8n %s', async (_, unkind) => {
		const harness = await start();
		unkind(harness);

		for (let index = 0; index < 3; index++) {
			const answer = await postDelivery(harness.url, JSON.stringify(deliveryEvent()), {
				secret: SECRET,
			});
			expect(answer.status).toBe(200);
		}
		await untilWarned(harness);

		expect(harness.staticDataSaves()).toBe(0);
		expect(harness.runs).toHaveLength(3);
		expect(warnings(harness)).toEqual([
			expect.stringMatching(
				/n8n \S+ answered a delivery without saving the event IDs.*another n8n process, or arrives after n8n restarts, may run again/,
			),
		]);
		expect(harness.logs.find((entry) => entry.level === 'warn')?.meta).toEqual(
			expect.objectContaining({ workflowId: harness.workflowId, n8nVersion: expect.any(String) }),
		);
	});
});
