import { AUTOMATIC_START } from '../../../../nodes/Messaging/throughput/concurrencyTuning';
import { PACE_KEPT_MS } from '../../../../nodes/Messaging/throughput/paceMemory';
import { VirtualClock } from './virtualClock';
import {
	sendThroughVirtualApi,
	sendWithFixedConcurrency,
	VirtualMessagingApi,
	type VirtualApiSettings,
} from './virtualMessagingApi';

/**
 * The defaults (Max Concurrent Requests unset) against the providers the node meets, through the node's own send
 * loop on virtual time. Every target is a ratio within one run of this file.
 */
const ITEMS = 2000;
const FIXED_SETTINGS = [5, 10, 20, 50];

async function run(settings: VirtualApiSettings, maxConcurrency = 0) {
	const clock = new VirtualClock();
	const api = new VirtualMessagingApi(settings, clock);
	const outcome = await sendThroughVirtualApi(api, clock, ITEMS, { maxConcurrency });
	return { api, ...outcome };
}

function failedItems(output: Array<{ json: Record<string, unknown> } | undefined>): number {
	return output.filter((item) => item === undefined || 'error' in item.json).length;
}

describe.each([
	{ name: '20 ms', latencyMs: 20, jitterMs: 5 },
	{ name: '200 ms', latencyMs: 200, jitterMs: 50 },
	{
		name: '200 ms, seen from a busy host whose event loop stalls 200 ms every 700 ms',
		latencyMs: 200,
		jitterMs: 50,
		stalls: { everyMs: 700, forMs: 200 },
	},
	{
		// n8n's own event loop queues requests before the provider does: the round trip grows with what is in
		// flight, yet more in flight still delivers more answers per second.
		name: '20 ms, seen from a host that spends 1 ms of CPU on each request',
		latencyMs: 20,
		jitterMs: 5,
		hostCpuMs: 1,
	},
])('an unlimited provider at $name', ({ name: _name, ...provider }) => {
	test('the defaults reach ≥ 0.9 × the best fixed setting among 5, 10, 20 and 50 in flight', async () => {
		const fixedMs = await Promise.all(
			FIXED_SETTINGS.map(async (limit) => {
				const clock = new VirtualClock();
				return await sendWithFixedConcurrency(
					new VirtualMessagingApi(provider, clock),
					clock,
					ITEMS,
					limit,
				);
			}),
		);
		const automatic = await run(provider);

		expect(Math.min(...fixedMs) / automatic.durationMs).toBeGreaterThanOrEqual(0.9);
		expect(failedItems(automatic.output)).toBe(0);
		expect(automatic.api.accepted).toHaveLength(ITEMS);
		expect(new Set(automatic.api.accepted).size).toBe(ITEMS);
	});
});

describe('a token bucket of 100/s that tells its budget', () => {
	test.each([
		{ latencyMs: 20, jitterMs: 5, burst: 10 },
		{ latencyMs: 200, jitterMs: 50, burst: 100 },
	])(
		'at $latencyMs ms, burst $burst: ≤ 1 % answered 429, 0 failed items, ≤ 1.1 × the ideal time',
		async ({ latencyMs, jitterMs, burst }) => {
			const perSecond = 100;
			const { api, output, durationMs } = await run({
				latencyMs,
				jitterMs,
				bucket: { perSecond, burst },
			});
			const idealMs = ((ITEMS - burst) / perSecond) * 1000 + latencyMs;

			expect(api.throttled / api.requests).toBeLessThanOrEqual(0.01);
			expect(failedItems(output)).toBe(0);
			expect(durationMs / idealMs).toBeLessThanOrEqual(1.1);
		},
	);
});

describe('a provider whose latency grows past 20 requests in flight', () => {
	test.each([
		{ name: '100 ms', latencyMs: 100, jitterMs: 10 },
		{ name: '200 ms', latencyMs: 200, jitterMs: 50 },
		{
			name: '100 ms, seen from a host that spends 2 ms of CPU on each request',
			latencyMs: 100,
			jitterMs: 10,
			hostCpuMs: 2,
		},
		{
			// A stall in slow start slows one round trip and lowers its rate: the round trip after it must not read
			// the stall's end as a gain and climb past the knee.
			name: '100 ms, seen from a host whose event loop stalls 200 ms every 500 ms',
			latencyMs: 100,
			jitterMs: 10,
			stalls: { everyMs: 500, forMs: 200 },
		},
	])(
		'at $name: the defaults keep its p99 latency ≤ 2 × its unloaded p99',
		async ({ name: _name, ...latency }) => {
			const overloadable = { ...latency, kneeInFlight: 20 };
			const unloaded = await run(overloadable, 1);
			const automatic = await run(overloadable);

			expect(automatic.api.p99() / unloaded.api.p99()).toBeLessThanOrEqual(2);
			expect(automatic.api.peakInFlight).toBeLessThanOrEqual(40);
			expect(failedItems(automatic.output)).toBe(0);
		},
	);
});

describe('a 20 ms provider queueing past 20: a rise under 50 ms reads as the host queueing', () => {
	test('the defaults keep its p99 latency within 2 × the 50 ms they tolerate above its unloaded p99', async () => {
		const overloadable = { latencyMs: 20, jitterMs: 5, kneeInFlight: 20 };
		const unloaded = await run(overloadable, 1);
		const automatic = await run(overloadable);

		expect(automatic.api.p99() - unloaded.api.p99()).toBeLessThanOrEqual(2 * 50);
		expect(failedItems(automatic.output)).toBe(0);
	});
});

describe('unkind providers: what the defaults must never do', () => {
	test.each([
		{
			name: 'a 100/s bucket of 1 that keeps its budget to itself (429s only)',
			settings: {
				latencyMs: 20,
				jitterMs: 20,
				bucket: { perSecond: 100, burst: 1 },
				tellsBudget: false,
			},
		},
		{
			name: 'a provider 4 × slower for everyone from the second second on',
			settings: { latencyMs: 200, jitterMs: 50, slowerFrom: { atMs: 1000, extraMs: 600 } },
		},
		{
			name: 'a provider that queues past 3 in flight, with latency jittering ± 100 %',
			settings: { latencyMs: 50, jitterMs: 100, kneeInFlight: 3 },
		},
	])('$name: every item sent once, in its input slot, paired to it', async ({ settings }) => {
		const { api, output } = await run(settings);

		expect(failedItems(output)).toBe(0);
		expect(new Set(api.accepted).size).toBe(ITEMS);
		expect(api.accepted).toHaveLength(ITEMS);
		output.forEach((item, index) => {
			expect(item?.pairedItem).toEqual({ item: index });
			expect(item?.json.to).toBe(`+9198${10000000 + index}`);
		});
	});
});

/** Executions one after another in one process, all sending to one provider (one credential and base URL). */
async function executions(settings: VirtualApiSettings, items: number, count: number) {
	const clock = new VirtualClock();
	const endpoint = { baseUrl: `https://executions-${settings.latencyMs}-${items}.example.test` };
	const runs = [];
	for (let execution = 0; execution < count; execution++) {
		const api = new VirtualMessagingApi(settings, clock);
		const startedAt = clock.now();
		const outcome = await sendThroughVirtualApi(api, clock, items, {}, endpoint);
		// Everything started at the very instant the execution began: the limit it started at.
		const startingLimit = api.starts.filter(({ at }) => at === startedAt).length;
		runs.push({ ...outcome, api, startingLimit });
	}
	return { clock, endpoint, runs };
}

async function bestFixedMs(settings: VirtualApiSettings, items: number): Promise<number> {
	const fixedMs = await Promise.all(
		FIXED_SETTINGS.map(async (limit) => {
			const clock = new VirtualClock();
			return await sendWithFixedConcurrency(
				new VirtualMessagingApi(settings, clock),
				clock,
				items,
				limit,
			);
		}),
	);
	return Math.min(...fixedMs);
}

describe.each([
	{ latencyMs: 20, jitterMs: 5 },
	{ latencyMs: 200, jitterMs: 50 },
])(
	'small campaigns at $latencyMs ms: each execution goes on from the pace the one before learnt',
	(provider) => {
		// 100 messages take a first execution 3 round trips (5, 40, 55) against 2 at 50 fixed: the round trip at 5
		// reads the provider's unloaded latency, which keeps a provider queueing past 20 within 2 × it.
		test.each([
			{ items: 100, first: 0.6 },
			{ items: 500, first: 0.6 },
			{ items: 1000, first: 0.6 },
		])(
			'$items messages: the first execution ≥ $first ×, the second ≥ 0.9 × the best fixed setting',
			async ({ items, first }) => {
				const best = await bestFixedMs(provider, items);
				const { runs } = await executions(provider, items, 2);

				expect(runs[0].startingLimit).toBe(AUTOMATIC_START);
				expect(runs[1].startingLimit).toBeGreaterThan(AUTOMATIC_START);
				expect(best / runs[0].durationMs).toBeGreaterThanOrEqual(first);
				expect(best / runs[1].durationMs).toBeGreaterThanOrEqual(0.9);
				for (const { output, api } of runs) {
					expect(failedItems(output)).toBe(0);
					expect(new Set(api.accepted).size).toBe(items);
				}
			},
		);

		test('100 messages: every execution starts where the last one got to', async () => {
			const { runs } = await executions(provider, 100, 3);

			// 100 messages at 10, 36 and 54 in flight: the step to 54 held, so the limit is 81 when the run ends, and the
			// next execution begins there.
			expect(runs.map((run) => run.startingLimit)).toEqual([AUTOMATIC_START, 81, 100]);
		});
	},
);

describe('a pace is not reused when it may no longer hold', () => {
	const provider = { latencyMs: 200, jitterMs: 50 };

	test('older than PACE_KEPT_MS: the next execution starts from the start again', async () => {
		const { clock, endpoint, runs } = await executions(provider, 500, 1);
		expect(runs[0].startingLimit).toBe(AUTOMATIC_START);
		await clock.run(clock.sleep(PACE_KEPT_MS + 1));
		const api = new VirtualMessagingApi(provider, clock);
		const startedAt = clock.now();
		await sendThroughVirtualApi(api, clock, 500, {}, endpoint);

		expect(api.starts.filter(({ at }) => at === startedAt)).toHaveLength(AUTOMATIC_START);
	});

	test.each([
		{ cut: 'a 429', tellsBudget: false },
		{ cut: 'its budget running out', tellsBudget: true },
	])(
		'cut by the provider ($cut): the next execution starts from the start again',
		async ({ tellsBudget }) => {
			const bucket = { perSecond: 100, burst: 100 };
			const throttling = { latencyMs: 20, jitterMs: 5, bucket, tellsBudget };
			const { clock, endpoint, runs } = await executions(throttling, 500, 1);
			// The search grew past its start before the provider cut it: it had a pace to keep.
			expect(Math.max(...runs[0].api.starts.map(({ inFlight }) => inFlight))).toBeGreaterThan(
				AUTOMATIC_START,
			);
			if (!tellsBudget) expect(runs[0].api.throttled).toBeGreaterThan(0);
			// The same provider, its bucket full again after the reset: the cut is not carried over.
			await clock.run(clock.sleep(10_000));
			const api = new VirtualMessagingApi(provider, clock);
			const startedAt = clock.now();
			await sendThroughVirtualApi(api, clock, 500, {}, endpoint);

			expect(api.starts.filter(({ at }) => at === startedAt)).toHaveLength(AUTOMATIC_START);
		},
	);
});
