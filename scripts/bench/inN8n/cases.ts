import type { ProviderShape } from '../latencyProxy';
import type { Sender } from './workflows';

export interface Case {
	key: string;
	label: string;
	sender: Sender;
	/** Fires every row at once: it leaves the most garbage, so it runs after every rotated case. */
	runsLast?: boolean;
}

export interface Provider {
	key: string;
	label: string;
	sends: number;
	shape: ProviderShape;
	/** The sandbox's token bucket; null = unlimited. */
	rateLimit: { perSecond: number; burst: number } | null;
	/** Seconds to wait before each case, so every case finds the bucket full. */
	pauseSeconds: number;
	/** Sends of the untimed warm-up branch at 50 in flight, before the cases. */
	warmUpSends: number;
	cases: Case[];
}

export const FIXED_SETTINGS = [5, 10, 20, 50];
/** The concurrency the yardsticks are compared at. */
export const YARDSTICK_CONCURRENCY = 20;

const automatic: Case = {
	key: 'auto',
	label: 'Messaging node, defaults (automatic)',
	sender: { kind: 'messaging', options: {} },
};

const fixed = (limit: number): Case => ({
	key: `fixed${limit}`,
	label: `Messaging node, Max Concurrent Requests ${limit}`,
	sender: { kind: 'messaging', options: { maxConcurrency: limit } },
});

/** Equal concurrency: the bare-helper node at the same in-flight limit, the HTTP Request node at N per latency. */
function yardsticks(latencyMs: number): Case[] {
	return [
		{
			key: 'bare',
			label: `bare-helper node, ${YARDSTICK_CONCURRENCY} in flight`,
			sender: { kind: 'bareHelper', maxConcurrent: YARDSTICK_CONCURRENCY },
		},
		{
			key: 'httpBatch',
			label: `HTTP Request node, Batching ${YARDSTICK_CONCURRENCY} per ${latencyMs} ms`,
			sender: {
				kind: 'httpRequest',
				options: {
					batching: { batch: { batchSize: YARDSTICK_CONCURRENCY, batchInterval: latencyMs } },
				},
			},
		},
	];
}

export const PROVIDERS: Provider[] = [
	{
		key: 'fast',
		label: '20 ms',
		// The defaults spend their first ~150 sends (~0.4 s) finding the pace; a campaign of 5,000 shows the pace.
		sends: 5000,
		shape: { latencyMs: 20, jitterMs: 5 },
		rateLimit: null,
		pauseSeconds: 0,
		// After 1,000 sends n8n was still warming (345 to 393 sends/s, rising), and the case after it ran at half the
		// pace it ran at later in the same process: the defaults, which the rotation puts first, 7.89 s against 3.98
		// and 4.07 (2 Dec 2026). Only the fast provider keeps n8n's CPU busy enough for that to show.
		warmUpSends: 5000,
		cases: [
			automatic,
			...FIXED_SETTINGS.map(fixed),
			...yardsticks(20),
			{
				key: 'httpAll',
				label: 'HTTP Request node, defaults (all at once)',
				sender: { kind: 'httpRequest', options: {} },
				runsLast: true,
			},
		],
	},
	{
		key: 'slow',
		label: '200 ms',
		sends: 1000,
		shape: { latencyMs: 200, jitterMs: 20 },
		rateLimit: null,
		pauseSeconds: 0,
		warmUpSends: 1000,
		cases: [automatic, ...FIXED_SETTINGS.map(fixed), ...yardsticks(200)],
	},
	{
		key: 'bucket',
		label: '100/s bucket',
		sends: 2000,
		shape: { latencyMs: 20, jitterMs: 5 },
		rateLimit: { perSecond: 100, burst: 100 },
		pauseSeconds: 2,
		warmUpSends: 1000,
		cases: [
			automatic,
			{
				key: 'perSecond',
				label: 'Messaging node, Max Messages per Second 100',
				sender: { kind: 'messaging', options: { maxPerSecond: 100 } },
			},
			{
				key: 'httpPolite',
				label: 'HTTP Request node, Batching 100 per 1,000 ms',
				sender: {
					kind: 'httpRequest',
					options: { batching: { batch: { batchSize: 100, batchInterval: 1000 } } },
				},
			},
		],
	},
	{
		key: 'knee',
		label: 'queues past 20',
		sends: 1000,
		shape: { latencyMs: 100, jitterMs: 10, kneeInFlight: 20 },
		rateLimit: null,
		pauseSeconds: 0,
		warmUpSends: 1000,
		cases: [automatic, fixed(5), fixed(50)],
	},
];
