import { startSandbox, type Sandbox } from '../../sandbox';
import { lifecycleFromEnv, webhooksFromEnv } from '../../sandbox/cli-options';
import { planRealistic, type TimedStatus } from '../../sandbox/messages/realistic-plan';
import { createRandom } from '../../sandbox/random';
import { post, smsFields, whatsappTemplateFields } from './http-client';
import { startWebhookReceiver, waitUntil, type WebhookReceiver } from './webhook-receiver';

const NO_FAILING: never[] = [];

function plans(
	seed: number,
	count: number,
	failedShare = 0,
	channel: 'sms' | 'whatsapp' = 'whatsapp',
) {
	const random = createRandom(seed);
	return Array.from({ length: count }, (_, index) =>
		planRealistic({
			channel,
			to: `+9197${String(index).padStart(8, '0')}`,
			failingRecipients: NO_FAILING,
			random,
			failedShare,
			timeScale: 1,
		}),
	);
}

function quantile(values: number[], q: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const delaysOf = (all: TimedStatus[][], status: string) =>
	all.flatMap((plan) => plan.filter((step) => step.status === status).map((step) => step.afterMs));

describe('realistic lifecycle plans', () => {
	it('plays sent, delivered, read for WhatsApp and sent, delivered for SMS', () => {
		expect(plans(1, 1)[0].map((step) => step.status)).toEqual(['sent', 'delivered', 'read']);
		expect(plans(1, 1, 0, 'sms')[0].map((step) => step.status)).toEqual(['sent', 'delivered']);
	});

	it('spreads the delays: sent within 1-3 s, delivered seconds later, read later still, each a distribution', () => {
		const all = plans(42, 2000);
		const sent = delaysOf(all, 'sent');
		const delivered = delaysOf(all, 'delivered');
		const read = delaysOf(all, 'read');

		expect(Math.min(...sent)).toBeGreaterThanOrEqual(1000);
		expect(Math.max(...sent)).toBeLessThanOrEqual(3000);
		expect(quantile(sent, 0.9) - quantile(sent, 0.1)).toBeGreaterThan(1200);
		expect(quantile(delivered, 0.5)).toBeGreaterThan(2000);
		expect(quantile(delivered, 0.5)).toBeLessThan(4500);
		expect(quantile(delivered, 0.95)).toBeGreaterThan(2 * quantile(delivered, 0.05));
		expect(quantile(read, 0.5)).toBeGreaterThan(2 * quantile(delivered, 0.5));
		expect(new Set(read.map(Math.round)).size).toBeGreaterThan(1500);
	});

	it('fails the configured share, sent then failed with an error code', () => {
		const all = plans(7, 10_000, 0.2);
		const failed = all.filter((plan) => plan[plan.length - 1].status === 'failed');

		expect(failed.length / all.length).toBeGreaterThan(0.18);
		expect(failed.length / all.length).toBeLessThan(0.22);
		const shapes = new Set(failed.map((plan) => plan.map((step) => step.status).join(' ')));
		expect(shapes).toEqual(new Set(['sent failed']));
		expect(failed.filter((plan) => !plan[1].error?.code || !plan[1].error.message)).toEqual([]);
		expect(new Set(failed.map((plan) => plan[1].error?.code))).toEqual(
			new Set(['message_undeliverable', 'not_on_whatsapp']),
		);
		expect(plans(7, 1000, 0).every((plan) => plan.length === 3)).toBe(true);
	});

	it('replays one seed exactly, and another seed differs', () => {
		expect(plans(99, 50, 0.1)).toEqual(plans(99, 50, 0.1));
		expect(plans(100, 50, 0.1)).not.toEqual(plans(99, 50, 0.1));
	});

	it('scales every delay by the time scale', () => {
		const random = (seed: number) => createRandom(seed);
		const input = {
			channel: 'whatsapp' as const,
			to: '+919700000001',
			failingRecipients: NO_FAILING,
		};
		const real = planRealistic({ ...input, random: random(5), failedShare: 0, timeScale: 1 });
		const fast = planRealistic({ ...input, random: random(5), failedShare: 0, timeScale: 0.01 });
		expect(fast.map((step) => step.afterMs)).toEqual(real.map((step) => step.afterMs * 0.01));
	});
});

describe('realistic lifecycle in a running sandbox', () => {
	let sandbox: Sandbox;
	let receiver: WebhookReceiver;

	beforeEach(async () => {
		receiver = await startWebhookReceiver();
		sandbox = await startSandbox({
			lifecycle: { mode: 'realistic', timeScale: 0.01, seed: 3, failedShare: 0 },
		});
		sandbox.setWebhookUrl(receiver.url);
	});
	afterEach(async () => {
		await sandbox.close();
		await receiver.close();
	});

	it('posts sent, delivered, read for a WhatsApp message, keeping one sent in its history', async () => {
		const reply = await post(sandbox, '/v1/whatsapp/send', whatsappTemplateFields());
		expect(reply.body).toMatchObject({ status: 'sent' });

		const deliveries = await receiver.waitFor(3);

		expect(deliveries.map((delivery) => delivery.event.status)).toEqual([
			'sent',
			'delivered',
			'read',
		]);
		expect(new Set(deliveries.map((delivery) => delivery.event.event_id)).size).toBe(3);
		await waitUntil(() => sandbox.messages()[0].status === 'read', 'the message is read');
		expect(sandbox.messages()[0].history.map((change) => change.status)).toEqual([
			'sent',
			'delivered',
			'read',
		]);
	});

	it('posts sent, delivered for an SMS and keeps a seeded failing recipient on its seeded path', async () => {
		await post(sandbox, '/v1/sms/send', smsFields());
		await post(sandbox, '/v1/sms/send', smsFields({ to: '+919800000001' }));

		await receiver.waitFor(3);
		await waitUntil(() => sandbox.webhookSummary().delivered === 3, 'three events are answered');

		const statuses = (to: string) =>
			receiver.received.filter((r) => r.event.recipient === to).map((r) => r.event.status);
		expect(statuses('+919812345678')).toEqual(['sent', 'delivered']);
		expect(statuses('+919800000001')).toEqual(['failed']);
	});

	it('switches mode through PUT /__admin/config and refuses a mixed or unknown lifecycle', async () => {
		const put = (lifecycle: unknown) =>
			fetch(`${sandbox.url}/__admin/config`, {
				method: 'PUT',
				headers: { 'Content-Type': 'application/json' },
				body: JSON.stringify({ lifecycle }),
			});
		expect((await put({ stepDelayMs: 1 })).status).toBe(204);
		await post(sandbox, '/v1/whatsapp/send', whatsappTemplateFields());
		await receiver.waitFor(2);
		await waitUntil(() => sandbox.webhookSummary().delivered === 2, 'both events are answered');
		expect(receiver.received.map((r) => r.event.status)).toEqual(['delivered', 'read']);

		for (const bad of [
			{ mode: 'fast' },
			{ mode: 'realistic', stepDelayMs: 5 },
			{ mode: 'realistic', failedShare: 2 },
			{ mode: 'realistic', timeScale: -1 },
			{ mode: 'realistic', jitter: 1 },
		]) {
			const answer = await put(bad);
			expect(answer.status).toBe(400);
			expect(((await answer.json()) as { error: { message: string } }).error.message).toMatch(
				/lifecycle/,
			);
		}
		expect((await put({ mode: 'realistic', timeScale: 0 })).status).toBe(204);
	});
});

describe('npm run sandbox settings from the environment', () => {
	it('keeps fixed steps of 1 s unless SANDBOX_LIFECYCLE=realistic', () => {
		expect(lifecycleFromEnv({})).toEqual({ stepDelayMs: 1000 });
		expect(
			lifecycleFromEnv({
				SANDBOX_LIFECYCLE: 'realistic',
				SANDBOX_TIME_SCALE: '0.1',
				SANDBOX_SEED: '12',
				SANDBOX_FAILED_SHARE: '0.05',
			}),
		).toEqual({ mode: 'realistic', timeScale: 0.1, seed: 12, failedShare: 0.05 });
		expect(() => lifecycleFromEnv({ SANDBOX_LIFECYCLE: 'fast' })).toThrow(/SANDBOX_LIFECYCLE/);
		expect(() =>
			lifecycleFromEnv({ SANDBOX_LIFECYCLE: 'realistic', SANDBOX_TIME_SCALE: 'x' }),
		).toThrow(/SANDBOX_TIME_SCALE must be a number/);
	});

	it('sends one event per POST unless SANDBOX_WEBHOOK_BATCH is set', () => {
		expect(webhooksFromEnv({})).toEqual({});
		expect(
			webhooksFromEnv({ SANDBOX_WEBHOOK_CONCURRENCY: '20', SANDBOX_WEBHOOK_BATCH: '0' }),
		).toEqual({
			maxConcurrent: 20,
		});
		expect(webhooksFromEnv({ SANDBOX_WEBHOOK_BATCH: '100' })).toEqual({
			batch: { maxEvents: 100, lingerMs: 200 },
		});
		expect(
			webhooksFromEnv({ SANDBOX_WEBHOOK_BATCH: '10', SANDBOX_WEBHOOK_LINGER_MS: '50' }),
		).toEqual({ batch: { maxEvents: 10, lingerMs: 50 } });
	});
});
