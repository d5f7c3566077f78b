import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox';
import {
	startTriggerHarness,
	type TriggerHarness,
} from '../nodes/MessagingTrigger/support/triggerHarness';
import { waitUntil } from './webhook-receiver';

/** The real Messaging Trigger webhook (n8n-core's WebhookContext over HTTP) under a campaign's event stream. */
describe('Messaging Trigger receiving a campaign from the sandbox', () => {
	let sandbox: Sandbox;
	let harness: TriggerHarness;

	async function runCampaign(webhooks: SandboxOptions['webhooks'], typeVersion = 1.1) {
		sandbox = await startSandbox({ lifecycle: null, webhooks });
		harness = await startTriggerHarness({ signingSecret: sandbox.signingSecret, typeVersion });
		const campaign = sandbox.startCampaign({
			count: 40,
			url: harness.url,
			timeScale: 0.01,
			failedShare: 0.1,
			seed: 27,
		});
		await waitUntil(
			() => sandbox.webhookSummary().delivered === campaign.expectedEvents,
			'the trigger answered every event',
			20_000,
		);
		const items = harness.runs.flat().map((item) => item.json);
		return { campaign, items, summary: sandbox.webhookSummary() };
	}

	afterEach(async () => {
		await sandbox.close();
		await harness.close();
	});

	it('runs every event once with one event per POST', async () => {
		const { campaign, items, summary } = await runCampaign({});

		expect(harness.runs).toHaveLength(campaign.expectedEvents);
		expect(harness.runs.every((run) => run.length === 1)).toBe(true);
		expect(new Set(items.map((item) => item.event_id)).size).toBe(campaign.expectedEvents);
		expect(items.filter((item) => item.status === 'failed')).toHaveLength(campaign.failed);
		expect(summary).toMatchObject({
			gaveUp: 0,
			postsByHttpStatus: { '200': campaign.expectedEvents },
		});
	});

	it('runs every event once with up to 25 events per POST: one execution per POST, an item per event', async () => {
		const { campaign, items, summary } = await runCampaign({
			batch: { maxEvents: 25, lingerMs: 50 },
		});

		expect(harness.runs).toHaveLength(summary.posts);
		expect(summary.posts).toBeLessThan(campaign.expectedEvents / 2);
		expect(Math.max(...harness.runs.map((run) => run.length))).toBeGreaterThan(1);
		expect(items).toHaveLength(campaign.expectedEvents);
		expect(new Set(items.map((item) => item.event_id)).size).toBe(campaign.expectedEvents);
		const statuses = new Map<string, string[]>();
		for (const item of items)
			statuses.set(item.message_id as string, [
				...(statuses.get(item.message_id as string) ?? []),
				item.status as string,
			]);
		expect(
			[...statuses.values()].filter(
				(shape) => !['sent delivered read', 'sent failed'].includes(shape.join(' ')),
			),
		).toEqual([]);
		expect(summary).toMatchObject({ gaveUp: 0, postsByHttpStatus: { '200': summary.posts } });
	});

	/** Every message's events in the order the API sends them: nothing reordered across batches. */
	function inOrderPerMessage(items: Array<Record<string, unknown>>): string[] {
		const statuses = new Map<string, string[]>();
		for (const item of items)
			statuses.set(item.message_id as string, [
				...(statuses.get(item.message_id as string) ?? []),
				item.status as string,
			]);
		return [...statuses.values()]
			.map((shape) => shape.join(' '))
			.filter((shape) => !['sent delivered read', 'sent failed'].includes(shape));
	}

	it.each([
		['one event per POST', {}],
		['up to 25 events per POST', { batch: { maxEvents: 25, lingerMs: 50 } }],
	])(
		'runs every event once in a few executions through the batching trigger (v2 defaults), %s',
		async (_shape, webhooks) => {
			const { campaign, items, summary } = await runCampaign(webhooks, 2);

			expect(items).toHaveLength(campaign.expectedEvents);
			expect(new Set(items.map((item) => item.event_id)).size).toBe(campaign.expectedEvents);
			expect(harness.runs.length).toBeLessThan(campaign.expectedEvents / 4);
			expect(Math.max(...harness.runs.map((run) => run.length))).toBeLessThanOrEqual(100);
			expect(inOrderPerMessage(items)).toEqual([]);
			expect(summary).toMatchObject({ gaveUp: 0, postsByHttpStatus: { '200': summary.posts } });
		},
	);
});
