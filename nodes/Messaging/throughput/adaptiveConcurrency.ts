import type { Clock } from './clock';
import type { ProviderBudget } from './providerBudget';
import type { FailureKind } from './retryPolicy';

export interface ConcurrencySettings {
	/** Max Concurrent Requests when the user set it; undefined lets the limit find its own ceiling. */
	upperBound?: number;
}

export const AUTOMATIC_UPPER_BOUND = 100;
// The fixed default of earlier versions: a pace every provider took, so the search starts from it.
const AUTOMATIC_START = 5;
const MIN_LIMIT = 1;
// Slow start grows by half per round trip rather than doubling: one step past a provider's knee then costs it at
// most 1.5 × its latency, not 2 ×.
const SLOW_START_GROWTH = 1.5;
// A round trip's median may exceed the fastest seen by this much before the provider counts as queueing
// (Netflix's default tolerance).
const LATENCY_TOLERANCE = 1.5;
// A busy n8n host stalls its event loop now and then, and every request in flight looks slow at once: once past
// slow start, only a rise that lasts this many round trips in a row is the provider queueing.
const SLOW_ROUND_TRIPS_TO_CUT = 2;
const LUCKY_QUANTILE = 0.1;
// n8n itself is often the bottleneck (its HTTP helper costs milliseconds of CPU per request), and then every
// request waits in its event loop: a rise of less than this is the host queueing, not the provider.
const HOST_QUEUEING_MS = 50;
// Slow start overshoots a provider's knee by up to half and leaves at once, as far as it must; afterwards the
// limit only probes by √limit, so a cut of a fifth at most answers the probe without undoing the search.
const MAX_SLOW_START_CUT = 0.5;
const MAX_PROBE_CUT = 0.8;
// The AWS SDK's adaptive retry mode keeps 0.7 of the rate after a throttle.
const THROTTLE_DECREASE = 0.7;
// Requests are paid for when they arrive, and the budget refills while they travel: twice one round trip's refill
// keeps a paced sender from waiting on its own lanes.
const REFILL_ROUND_TRIPS = 2;

interface Window {
	startedAt: number;
	latencies: number[];
	peakInFlight: number;
}

/**
 * A low quantile of the round trips, not their median: an event-loop stall on a busy n8n host delays every
 * request in flight across it, while a provider that queues delays every request, the luckiest one too.
 */
function luckyRoundTrip(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor((sorted.length - 1) * LUCKY_QUANTILE)];
}

/**
 * How many requests may be on the wire, found while sending: it grows while the provider's latency holds, and
 * shrinks when latency rises (a queue is forming at the provider), on a 429, and when the provider's budget
 * cannot pay for what is in flight. Like Netflix's concurrency-limits (a gradient of the fastest round trip over
 * the current one, plus a square-root probe) and the AWS SDK's adaptive mode (a multiplicative cut on throttling).
 *
 * Decisions are made once per round trip: a window closes when as many requests as the limit, all started after
 * the previous decision, have answered, so every decision sees the effect of the one before.
 */
export class AdaptiveConcurrencyLimit {
	readonly upperBound: number;

	private limit: number;

	private slowStart: boolean;

	private fastestRoundTrip = Number.POSITIVE_INFINITY;

	private latestRoundTrip: number | undefined;

	private window: Window;

	private lastDecreaseAt = Number.NEGATIVE_INFINITY;

	private slowRoundTrips = 0;

	private inFlight = 0;

	constructor(
		settings: ConcurrencySettings,
		private readonly clock: Clock,
	) {
		const userBound = settings.upperBound;
		this.upperBound = userBound && userBound > 0 ? Math.floor(userBound) : AUTOMATIC_UPPER_BOUND;
		// A bound the user chose is a pace they already trust: start there and only leave it on a signal.
		this.limit = userBound && userBound > 0 ? this.upperBound : AUTOMATIC_START;
		this.slowStart = this.limit < this.upperBound;
		this.window = this.freshWindow();
	}

	/** How many requests may be in flight now: a whole number from 1 to the upper bound. */
	get current(): number {
		return Math.max(MIN_LIMIT, Math.min(this.upperBound, Math.floor(this.limit)));
	}

	/**
	 * Times `request` and learns from its outcome: an answer is a latency sample, a 429 a throttle; a request that
	 * never reached the provider says nothing about it. The outcome is passed on unchanged.
	 */
	async track<T>(
		request: () => Promise<T>,
		failureKindOf: (error: unknown) => FailureKind,
	): Promise<T> {
		const startedAt = this.clock.now();
		this.inFlight++;
		this.window.peakInFlight = Math.max(this.window.peakInFlight, this.inFlight);
		const sending = request();
		// Only observed here: the caller gets the rejection exactly as the transport made it.
		void sending.then(
			() => {
				this.inFlight--;
				this.recordAnswer(startedAt);
			},
			(error: unknown) => {
				this.inFlight--;
				const kind = failureKindOf(error);
				if (kind === 'rate_limited') this.recordThrottled(startedAt);
				else if (kind !== 'not_sent') this.recordAnswer(startedAt);
			},
		);
		return await sending;
	}

	/** Never more in flight than the budget left, plus what refills while they travel, can pay for. */
	recordProviderBudget({ remaining, quota, windowSeconds }: ProviderBudget): void {
		const roundTripSeconds = (this.latestRoundTrip ?? 0) / 1000;
		const refill = (quota / windowSeconds) * roundTripSeconds * REFILL_ROUND_TRIPS;
		const affordable = Math.max(MIN_LIMIT, remaining + refill);
		if (affordable >= this.limit) return;
		this.limit = affordable;
		this.afterDecrease();
	}

	/**
	 * The requests in flight when the provider first said 429 all come back 429; the cut made for the first one
	 * already answers them, so only a request started after the last cut cuts again.
	 */
	private recordThrottled(startedAt: number): void {
		if (startedAt < this.lastDecreaseAt) return;
		this.limit = Math.max(MIN_LIMIT, this.limit * THROTTLE_DECREASE);
		this.afterDecrease();
	}

	private recordAnswer(startedAt: number): void {
		const roundTrip = this.clock.now() - startedAt;
		this.latestRoundTrip = roundTrip;
		if (startedAt < this.window.startedAt) return;
		this.window.latencies.push(roundTrip);
		if (this.window.latencies.length >= this.current) this.decide();
	}

	private decide(): void {
		const { latencies, peakInFlight } = this.window;
		const roundTrip = luckyRoundTrip(latencies);
		this.fastestRoundTrip = Math.min(this.fastestRoundTrip, roundTrip);
		const tolerated = Math.max(
			this.fastestRoundTrip * LATENCY_TOLERANCE,
			this.fastestRoundTrip + HOST_QUEUEING_MS,
		);
		const gradient = tolerated / roundTrip;
		this.slowRoundTrips = gradient < 1 ? this.slowRoundTrips + 1 : 0;
		const slowEnough = this.slowStart ? 1 : SLOW_ROUND_TRIPS_TO_CUT;
		if (gradient < 1 && this.slowRoundTrips < slowEnough) {
			this.window = this.freshWindow();
			return;
		}
		if (gradient < 1 && this.current === MIN_LIMIT) {
			// Still slow with one request in flight: the provider got slower for everyone, not because of us.
			// That latency is its new unloaded one, and the search starts again from here.
			this.fastestRoundTrip = roundTrip;
			this.slowStart = true;
		} else if (gradient < 1) {
			const deepestCut = this.slowStart ? MAX_SLOW_START_CUT : MAX_PROBE_CUT;
			this.limit = Math.max(MIN_LIMIT, this.limit * Math.max(deepestCut, gradient));
			this.afterDecrease();
			return;
		}
		// A limit the run never filled (a paced run, the last items) taught nothing about a higher one.
		if (peakInFlight >= this.current) {
			const grown = this.slowStart
				? this.limit * SLOW_START_GROWTH
				: this.limit + Math.sqrt(this.limit);
			this.limit = Math.min(this.upperBound, grown);
		}
		this.window = this.freshWindow();
	}

	private afterDecrease(): void {
		this.slowStart = false;
		this.slowRoundTrips = 0;
		this.lastDecreaseAt = this.clock.now();
		this.window = this.freshWindow();
	}

	private freshWindow(): Window {
		return { startedAt: this.clock.now(), latencies: [], peakInFlight: this.inFlight };
	}
}
