import type { INodeExecutionData } from 'n8n-workflow';

import {
	heldNow,
	MAX_HELD_EVENTS,
	SPREAD_ANSWERS_FROM_DELIVERIES,
} from '../../../nodes/MessagingTrigger/eventBatches';
import {
	deliveryEvent,
	nowSeconds,
	postDelivery,
	sign,
	type DeliveryEventFixture,
	type PostResult,
} from './support/signedDelivery';
import { startTriggerHarness, type TriggerHarness } from './support/triggerHarness';

const SECRET = 'whsec_trigger_batching_7e21';
const BATCHING_VERSION = 2;

function idsOf(run: INodeExecutionData[]): string[] {
	return run.map((item) => item.json.event_id as string);
}

function pause(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until `holds` is true; false if it was not within `limitMs`. */
async function within(limitMs: number, holds: () => boolean): Promise<boolean> {
	const deadline = Date.now() + limitMs;
	while (!holds()) {
		if (Date.now() > deadline) return false;
		await pause(5);
	}
	return true;
}

describe('Messaging Trigger v2: concurrent deliveries go to one execution, over real HTTP', () => {
	const harnesses: TriggerHarness[] = [];

	afterEach(async () => {
		await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
	});

	async function start(parameters = {}): Promise<TriggerHarness> {
		const harness = await startTriggerHarness({
			signingSecret: SECRET,
			parameters,
			typeVersion: BATCHING_VERSION,
		});
		harnesses.push(harness);
		return harness;
	}

	/** POSTs one event and records, the moment its answer arrives, which events n8n had started by then. */
	async function deliver(
		harness: TriggerHarness,
		body: unknown,
	): Promise<PostResult & { startedWhenAnswered: Set<string>; answeredAt: number }> {
		const sentAt = Date.now();
		const result = await postDelivery(harness.url, JSON.stringify(body), { secret: SECRET });
		return {
			...result,
			startedWhenAnswered: new Set(harness.runs.flatMap(idsOf)),
			answeredAt: Date.now() - sentAt,
		};
	}

	it('hands every delivery but the batch leader back to n8n at once, and answers them itself once the execution exists', async () => {
		const harness = await start({ batchWaitMs: 3000 });
		const events = Array.from({ length: 10 }, () => deliveryEvent());

		const answering = Promise.all(events.map((event) => deliver(harness, event)));
		// Arrival takes what a busy machine makes it take; what is judged is what each delivery did once there.
		const arrived = await within(10_000, () => harness.webhookCalls() === events.length);
		// Handed back at once: well within the batch's 3 s wait, while the leader is still held.
		const handedBack = await within(1_000, () => harness.requestsInWebhook() <= 1);
		const heldWhileWaiting = harness.requestsInWebhook();
		const startedWhileWaiting = harness.runs.length;
		const answers = await answering;

		expect([arrived, handedBack]).toEqual([true, true]);
		expect(startedWhileWaiting).toBe(0);
		expect(heldWhileWaiting).toBe(1);
		expect(answers.map((answer) => answer.status)).toEqual(events.map(() => 200));
		expect(answers.every((answer) => answer.startedWhenAnswered.size === 10)).toBe(true);
		expect(harness.runs).toHaveLength(1);
	});

	it('runs 20 concurrent deliveries as one execution, and answers each 200 only once that execution exists', async () => {
		const harness = await start();
		const events = Array.from({ length: 20 }, () => deliveryEvent());

		const answers = await Promise.all(events.map((event) => deliver(harness, event)));

		expect(harness.runs).toHaveLength(1);
		expect(new Set(idsOf(harness.runs[0]))).toEqual(new Set(events.map((e) => e.event_id)));
		for (const [index, answer] of answers.entries()) {
			expect(answer.status).toBe(200);
			expect(answer.body).toEqual({ received: 1, accepted: 1, duplicates: 0, filteredOut: 0 });
			expect(answer.startedWhenAnswered.has(events[index].event_id)).toBe(true);
		}
		expect(heldNow()).toEqual({ events: 0, deliveries: 0 });
	});

	it('keeps arrival order, and a batch of several events per delivery stays together', async () => {
		const harness = await start({ batchWaitMs: 2000 });
		const deliveries: DeliveryEventFixture[][] = [
			[deliveryEvent({ status: 'sent' })],
			[deliveryEvent({ status: 'sent' }), deliveryEvent({ status: 'delivered' })],
			[deliveryEvent({ status: 'read' })],
		];

		const pending: Promise<unknown>[] = [];
		for (const body of deliveries) {
			pending.push(deliver(harness, body.length === 1 ? body[0] : body));
			await pause(40);
		}
		await Promise.all(pending);

		expect(harness.runs.map(idsOf)).toEqual([deliveries.flat().map((event) => event.event_id)]);
	});

	it('answers a big, slow batch as far apart as it arrived, once its execution exists, so the sender never sends all at once', async () => {
		const harness = await start({ batchWaitMs: 5000 });
		const events = Array.from({ length: SPREAD_ANSWERS_FROM_DELIVERIES }, () => deliveryEvent());

		const answered: Array<Promise<{ sentAt: number; doneAt: number; started: number }>> = [];
		for (const event of events) {
			const sentAt = Date.now();
			answered.push(
				deliver(harness, event).then((answer) => ({
					sentAt,
					doneAt: Date.now(),
					started: answer.startedWhenAnswered.size,
				})),
			);
			await pause(25);
		}
		const answers = await Promise.all(answered);

		expect(harness.runs).toHaveLength(1);
		expect(answers.every((answer) => answer.started === events.length)).toBe(true);
		const [first, last] = [answers[0], answers[answers.length - 1]];
		// Answered together, they would be a few ms apart; each waited about as long as the first.
		expect(last.doneAt - first.doneAt).toBeGreaterThanOrEqual(0.8 * (last.sentAt - first.sentAt));
	});

	it('starts an execution as soon as it holds Max Events per Execution, and never splits a delivery', async () => {
		const harness = await start({ batchWaitMs: 5000, batchMaxEvents: 10 });
		const events = Array.from({ length: 25 }, () => deliveryEvent());

		const answers = await Promise.all(events.map((event) => deliver(harness, event)));

		expect(answers.every((answer) => answer.status === 200)).toBe(true);
		expect(harness.runs.map((run) => run.length)).toEqual([10, 10, 5]);
		expect(new Set(harness.runs.flatMap(idsOf)).size).toBe(25);
		// The first two filled up, the third went quiet: nobody waited the 5 s.
		expect(Math.max(...answers.map((answer) => answer.answeredAt))).toBeLessThan(2500);
	});

	it('answers a lone delivery once the batch goes quiet, not after the whole wait', async () => {
		const harness = await start({ batchWaitMs: 4000 });

		const answer = await deliver(harness, deliveryEvent());

		expect(answer.status).toBe(200);
		expect(harness.runs).toHaveLength(1);
		expect(answer.answeredAt).toBeGreaterThanOrEqual(390);
		expect(answer.answeredAt).toBeLessThan(2000);
	});

	it('answers every delivery of a batch 503 with Retry-After when n8n could not start it, and the retries run once', async () => {
		const harness = await start();
		harness.failNextHandOffs(1);
		const events = Array.from({ length: 8 }, () => deliveryEvent());

		const sentAt = Date.now();
		const responses = await Promise.all(
			events.map((event) =>
				fetchSigned(harness.url, JSON.stringify(event)).then((response) => ({
					status: response.status,
					retryAfter: response.headers.get('retry-after'),
				})),
			),
		);
		expect(Date.now() - sentAt).toBeLessThan(3000);

		expect(harness.runs).toHaveLength(0);
		const statuses = responses.map((response) => response.status).sort();
		expect(statuses).toEqual([500, 503, 503, 503, 503, 503, 503, 503]);
		expect(responses.filter((r) => r.status === 503).map((r) => r.retryAfter)).toEqual(
			Array(7).fill('1'),
		);

		const retries = await Promise.all(events.map((event) => deliver(harness, event)));
		expect(retries.every((retry) => retry.status === 200)).toBe(true);
		expect(harness.runs).toHaveLength(1);
		expect(new Set(idsOf(harness.runs[0]))).toEqual(new Set(events.map((e) => e.event_id)));
	});

	it('saves no id of a batch whose execution n8n has not stored yet: after a crash then, its retries run', async () => {
		const harness = await start({ batchMaxEvents: 2 });
		// n8n takes 300 ms to store batch X's execution, and fails: the crash of a loaded process, as seen from here.
		harness.failNextHandOffs(1, 300);
		const x = [deliveryEvent(), deliveryEvent()];
		const answerToX = deliver(harness, x);
		await within(1_000, () => harness.webhookCalls() === 1);
		await pause(20);
		// Batch Y, meanwhile, starts and is saved.
		const y = await deliver(harness, [deliveryEvent(), deliveryEvent()]);
		expect(y.status).toBe(200);
		const savedWhileXWasWithN8n = harness.staticData();
		expect((await answerToX).status).toBe(500);

		// n8n restarted on what the database held then: the retries of X must run, not be taken for duplicates.
		const restarted = await start({ batchMaxEvents: 2 });
		restarted.setStaticData(savedWhileXWasWithN8n);
		const retry = await deliver(restarted, x);
		expect(retry.status).toBe(200);
		expect(retry.body).toMatchObject({ accepted: 2, duplicates: 0 });
		expect(restarted.runs.map(idsOf)).toEqual([x.map((event) => event.event_id)]);
	});

	it('runs an event once when its retry lands in another batch, and lets a refused delivery spoil nothing', async () => {
		const harness = await start();
		const first = Array.from({ length: 5 }, () => deliveryEvent());
		await Promise.all(first.map((event) => deliver(harness, event)));

		const fresh = Array.from({ length: 5 }, () => deliveryEvent());
		const [retries, news, forged] = await Promise.all([
			Promise.all(first.map((event) => deliver(harness, event))),
			Promise.all(fresh.map((event) => deliver(harness, event))),
			postDelivery(harness.url, JSON.stringify(deliveryEvent()), { secret: 'whsec_forger' }),
		]);

		expect(forged.status).toBe(401);
		expect(retries.map((retry) => (retry.body as { duplicates: number }).duplicates)).toEqual(
			Array(5).fill(1),
		);
		expect(news.every((answer) => answer.status === 200)).toBe(true);
		expect(harness.runs.map(idsOf)).toEqual([
			expect.arrayContaining(first.map((e) => e.event_id)),
			expect.arrayContaining(fresh.map((e) => e.event_id)),
		]);
		expect(harness.runs.flat()).toHaveLength(10);
	});

	it('filters before batching: events the settings leave out never start or join an execution', async () => {
		const harness = await start({ events: ['message.status'], statuses: ['failed'] });
		const delivered = Array.from({ length: 4 }, () => deliveryEvent({ status: 'delivered' }));
		const failed = Array.from({ length: 3 }, () => deliveryEvent({ status: 'failed' }));

		const answers = await Promise.all([...delivered, ...failed].map((e) => deliver(harness, e)));

		expect(answers.slice(0, 4).map((answer) => answer.body)).toEqual(
			Array(4).fill({ received: 1, accepted: 0, duplicates: 0, filteredOut: 1 }),
		);
		expect(answers.slice(0, 4).every((answer) => answer.answeredAt < 300)).toBe(true);
		expect(harness.runs.map(idsOf)).toEqual([
			expect.arrayContaining(failed.map((e) => e.event_id)),
		]);
		expect(harness.runs[0]).toHaveLength(3);
	});

	it('never mixes two workflows in one batch', async () => {
		const [one, other] = [await start(), await start()];
		const toOne = Array.from({ length: 6 }, () => deliveryEvent());
		const toOther = Array.from({ length: 6 }, () => deliveryEvent());

		await Promise.all([
			...toOne.map((event) => deliver(one, event)),
			...toOther.map((event) => deliver(other, event)),
		]);

		expect(one.runs.map(idsOf)).toEqual([expect.arrayContaining(toOne.map((e) => e.event_id))]);
		expect(other.runs.map(idsOf)).toEqual([expect.arrayContaining(toOther.map((e) => e.event_id))]);
		expect(one.runs[0]).toHaveLength(6);
		expect(other.runs[0]).toHaveLength(6);
	});

	it('turns deliveries away with 503 and Retry-After, claiming nothing, while the process holds its cap of events', async () => {
		const harness = await start({ batchWaitMs: 100, batchMaxEvents: 1000 });
		// Executions that take long to create keep their batches, and so their events, held.
		harness.delaySaves(() => 1500);
		const perDelivery = 1000;
		const fullLoads = MAX_HELD_EVENTS / perDelivery;
		const bodies = Array.from({ length: fullLoads }, () =>
			Array.from({ length: perDelivery }, () => deliveryEvent({ recipient: '+91981234567' })),
		);

		const held = bodies.map((body) => deliver(harness, body));
		while (heldNow().events < MAX_HELD_EVENTS) await pause(20);
		const turnedAway = deliveryEvent();
		const refusal = await fetchSigned(harness.url, JSON.stringify(turnedAway));

		expect(refusal.status).toBe(503);
		expect(refusal.headers.get('retry-after')).toBe('1');
		expect(((await refusal.json()) as { error: { code: string } }).error.code).toBe('busy');
		expect((await Promise.all(held)).every((answer) => answer.status === 200)).toBe(true);

		const retry = await deliver(harness, turnedAway);
		expect(retry.body).toEqual({ received: 1, accepted: 1, duplicates: 0, filteredOut: 0 });
		expect(harness.runs.flatMap(idsOf)).toHaveLength(MAX_HELD_EVENTS + 1);
	});

	it('keeps one execution per delivery with Batch Wait 0, and in triggers saved before batching', async () => {
		const off = await start({ batchWaitMs: 0 });
		const saved = await startTriggerHarness({ signingSecret: SECRET, typeVersion: 1.1 });
		harnesses.push(saved);

		for (const harness of [off, saved]) {
			const events = Array.from({ length: 5 }, () => deliveryEvent());
			await Promise.all(events.map((event) => deliver(harness, event)));
			expect(harness.runs.map((run) => run.length)).toEqual([1, 1, 1, 1, 1]);
		}
	});
});

/** A signed POST whose headers the test reads (Retry-After). */
async function fetchSigned(url: string, body: string): Promise<Response> {
	const timestamp = nowSeconds();
	return await fetch(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			'x-messaging-timestamp': String(timestamp),
			'x-messaging-signature': sign(SECRET, timestamp, body),
		},
		body,
	});
}
