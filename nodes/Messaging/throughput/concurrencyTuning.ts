import type { ProviderBudget } from '../vocabulary/providerBudget';

/**
 * The knobs of the automatic concurrency limit (`adaptiveConcurrency.ts`), each with the reason for its value, and
 * the two formulas that apply them. Their effect is measured by adaptiveTargets.test.ts and `npm run bench`.
 */

export const AUTOMATIC_UPPER_BOUND = 100;
// The first round trip reads the provider's unloaded latency, the yardstick of every later decision: few requests
// at once, so neither a provider's queue nor n8n's own (milliseconds of CPU per request) is in it.
export const AUTOMATIC_START = 10;
// If that round trip went well the second goes to 36: a campaign of 100 then takes 3 round trips (10, 36, 54), not
// 5 (10, 15, 22, 33, 50). A provider that queues past fewer meets one round trip above its knee, read on the
// requests that left last (roundTripWindow.ts) against its unloaded latency, and the limit goes back to what it
// answered unqueued. That round trip sets the p99 of a provider queueing past 20: at 40 (after a start of 5) it was
// 2 × its latency by itself, and n8n's own milliseconds took it past the bench's 2 × its unloaded p99; at 36 it is
// 1.8 ×.
export const SECOND_ROUND_TRIP_LIMIT = 36;
export const MIN_LIMIT = 1;
// The fewest answers a slow-start decision reads: a median of fewer is one request's luck.
export const MIN_SLOW_START_ANSWERS = 5;
// Slow start grows by half per round trip rather than doubling: one step past a provider's knee then costs it at
// most 1.5 × its latency, not 2 ×.
export const SLOW_START_GROWTH = 1.5;
// A round trip's median may exceed the fastest seen by this much before the provider counts as queueing
// (Netflix's default tolerance).
export const LATENCY_TOLERANCE = 1.5;
// A busy n8n host stalls its event loop now and then, and every request in flight looks slow at once; a burst
// (a step's new requests, a run resuming its pace) pays n8n's CPU on requests sent back to back once: only a rise
// that lasts this many round trips in a row is the provider queueing.
export const SLOW_ROUND_TRIPS_TO_CUT = 2;
// n8n itself is often the bottleneck (its HTTP helper costs milliseconds of CPU per request), and then every
// request waits in its event loop: a rise of less than this is the host queueing, not the provider.
export const HOST_QUEUEING_MS = 50;
// Slow start overshoots a provider's knee by up to half and leaves at once, as far as it must; afterwards the
// limit only probes by √limit, so a cut of a fifth at most answers the probe without undoing the search.
export const MAX_SLOW_START_CUT = 0.5;
export const MAX_PROBE_CUT = 0.8;
// The AWS SDK's adaptive retry mode keeps 0.7 of the rate after a throttle.
export const THROTTLE_DECREASE = 0.7;
// Requests are paid for when they arrive, and the budget refills while they travel: twice one round trip's refill
// keeps a paced sender from waiting on its own lanes.
export const REFILL_ROUND_TRIPS = 2;

/** The round trip past which a queue is forming. */
export function toleratedRoundTrip(fastest: number): number {
	return Math.max(fastest * LATENCY_TOLERANCE, fastest + HOST_QUEUEING_MS);
}

/** How many requests the budget left, plus what refills while they travel, can pay for. */
export function affordableInFlight(
	{ remaining, quota, windowSeconds }: ProviderBudget,
	roundTripMs: number,
): number {
	const refill = (quota / windowSeconds) * (roundTripMs / 1000) * REFILL_ROUND_TRIPS;
	return Math.max(MIN_LIMIT, remaining + refill);
}
