import type { Load } from './measureCase';
import type { EntryKind } from './workflows';

/**
 * The provider's open requests. A batch can never hold more deliveries than the sender has open (each is answered
 * only once the batch's execution exists): one with 20 open caps every batch at 20. 200 lets a batch reach the
 * trigger's default 100 events while the next one fills as the last is handed to n8n. `BENCH_EVENTS_OPEN` changes it
 * while investigating.
 */
export const OPEN_REQUESTS = Number(process.env.BENCH_EVENTS_OPEN ?? 200);
/**
 * A provider batching 100 events per POST keeps fewer open: 200 × 100 = 20,000 events in flight drove n8n's SQLite
 * past its write-lock timeout (executions errored, others stayed `running`), n8n's failure whatever the trigger.
 */
export const OPEN_REQUESTS_100_PER_POST = 20;
/** 10,000 messages sent at 100/s, each `sent`, `delivered` and `read`: ~300 status events a second for ~100 s. */
export const CAMPAIGN_EVENTS = 30_000;
export const CAMPAIGN_EVENTS_PER_SECOND = 300;
/**
 * The floor case measures n8n saturated, where every request waits in n8n's queue (its p99 answer at the defaults
 * was 8 to 12 s). Offered at that very rate a queue has no bound either, so the time to an answer is measured at 0.8
 * of it, a rate n8n sustains; batch sizes at the floor's rate itself, as the issue states that target.
 */
export const BELOW_FLOOR_RATE_SHARE = 0.8;

export interface Setting {
	key: 'defaults' | 'lazy';
	label: string;
	env: NodeJS.ProcessEnv;
	/** Events per case: the slow per-event modes get fewer (rates are compared, not totals). */
	events: Record<CaseKey, number>;
}

export type CaseKey =
	| 'floor'
	| 'floorCampaign'
	| 'webhook'
	| 'perEvent'
	| 'bare'
	| 'batching'
	| 'atFloorRate'
	| 'belowFloorRate'
	| 'batching100';

export const SETTINGS: Setting[] = [
	{
		key: 'defaults',
		label: "n8n's defaults",
		env: {},
		// ~20 requests/s at most here (an expression isolate per request): the slow modes get a minute each.
		events: {
			floor: 1_000,
			floorCampaign: 3_000,
			webhook: 1_000,
			perEvent: 600,
			bare: 600,
			batching: 3_000,
			atFloorRate: 1_000,
			belowFloorRate: 1_000,
			batching100: CAMPAIGN_EVENTS,
		},
	},
	{
		key: 'lazy',
		label: 'N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true',
		env: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' },
		events: {
			floor: 5_000,
			floorCampaign: CAMPAIGN_EVENTS,
			webhook: 2_000,
			perEvent: 2_000,
			bare: 2_000,
			batching: CAMPAIGN_EVENTS,
			atFloorRate: 5_000,
			belowFloorRate: 5_000,
			batching100: CAMPAIGN_EVENTS,
		},
	},
];

export interface EventCase {
	key: CaseKey;
	label: string;
	kind: EntryKind;
	perPost: number;
	/**
	 * `campaign`: offered at the campaign's pace, which at n8n's defaults is far beyond what n8n takes (its capacity
	 * is measured). `floor`: at the rate the floor case just measured, where n8n is saturated (batch sizes are
	 * measured). `belowFloor`: at 0.8 of the slowest reading of the floor's halves and the trigger alone, which n8n
	 * sustains (the time to an answer is measured: past capacity that time is n8n's queue, whatever the trigger does).
	 * Unpaced: as fast as the open requests allow.
	 */
	pace?: 'campaign' | 'floor' | 'belowFloor';
}

/**
 * In this order in each setting: the floor at the campaign's pace first, in a fresh n8n (the batching trigger's peak
 * memory is held to its peak under the same load); the floor unpaced, whose rate paces the cases after it, with the
 * trigger alone right after it (runPlan measures the floor again right after that); the rest of the batching trigger;
 * then the cases with an execution per delivery. Those run hundreds of executions at once, and n8n keeps most of the
 * memory they took: run first, they would count in the batching trigger's peak.
 */
export const CASES: EventCase[] = [
	{
		key: 'floorCampaign',
		label: "n8n's floor, at the campaign's pace",
		kind: 'floor',
		perPost: 1,
		pace: 'campaign',
	},
	{ key: 'floor', label: "n8n's floor (no execution)", kind: 'floor', perPost: 1 },
	{
		key: 'atFloorRate',
		label: "trigger, batching, at the floor's rate, the trigger alone",
		kind: 'batchingLean',
		perPost: 1,
		pace: 'floor',
	},
	{ key: 'batching', label: 'trigger, batching', kind: 'batching', perPost: 1, pace: 'campaign' },
	{
		key: 'belowFloorRate',
		label: "trigger, batching, at 0.8 × the floor's rate (or the trigger alone's, if slower)",
		kind: 'batching',
		perPost: 1,
		pace: 'belowFloor',
	},
	{ key: 'batching100', label: 'trigger, batching, 100 per POST', kind: 'batching', perPost: 100 },
	{ key: 'webhook', label: "n8n's Webhook node", kind: 'webhook', perPost: 1 },
	{ key: 'perEvent', label: 'trigger, per event', kind: 'perEvent', perPost: 1 },
	{ key: 'bare', label: 'a bare community trigger, per event', kind: 'bare', perPost: 1 },
];

/** BENCH_EVENTS_SCALE=0.05 shrinks every count while investigating (a machine under load, a quick check). */
export function eventsScale(): number {
	const scale = Number(process.env.BENCH_EVENTS_SCALE ?? 1);
	if (!(scale > 0 && scale <= 1))
		throw new Error('BENCH_EVENTS_SCALE must be above 0 and at most 1');
	return scale;
}

/**
 * `floorReadings`: what the floor case of the same setting has measured so far, events/s, one reading per part;
 * `aloneReadings`: the same of the trigger alone. A paced case takes the slowest: the floor drifts within one n8n
 * (one run read 23.6 then 19.4/s), and 0.8 of a rate n8n no longer reaches is no margin (n8n then sustained 16.8 of
 * the 17.0/s offered, and answers queued). The case at 0.8 also takes the trigger alone's rate when slower: with
 * the floor's halves at 23.3 and 25.5/s, the trigger alone ran 21.0/s, and 18/s offered queued (p99 10.8 s).
 */
export function loadOf(
	setting: Setting,
	eventCase: EventCase,
	floorReadings: number[] = [],
	aloneReadings: number[] = [],
): Load {
	const floorRate = floorReadings.length > 0 ? Math.min(...floorReadings) : Number.NaN;
	const paces = {
		campaign: CAMPAIGN_EVENTS_PER_SECOND,
		floor: Math.floor(floorRate),
		belowFloor: Math.floor(Math.min(floorRate, ...aloneReadings) * BELOW_FLOOR_RATE_SHARE),
	};
	const eventsPerSecond = eventCase.pace ? paces[eventCase.pace] : undefined;
	if (eventsPerSecond !== undefined && !(eventsPerSecond > 0))
		throw new Error(`${eventCase.key} is paced at the floor's rate: measure the floor first`);
	const events = Math.max(
		eventCase.perPost,
		Math.round((setting.events[eventCase.key] * eventsScale()) / eventCase.perPost) *
			eventCase.perPost,
	);
	return {
		events,
		perPost: eventCase.perPost,
		openRequests: eventCase.perPost > 1 ? OPEN_REQUESTS_100_PER_POST : OPEN_REQUESTS,
		eventsPerSecond,
	};
}
