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
// A step up that lengthened the round trip must raise the answers per second by this share of its own size
// (at least the floor): a provider at capacity answers no faster for more in flight, a busy n8n host still does.
const GAIN_SHARE = 0.25;
const MIN_GAIN = 0.04;
// Past a step that paid, the round trip it brought may grow this much more before it reads as a queue.
const ACCEPTED_TOLERANCE = 1.25;
// Requests are paid for when they arrive, and the budget refills while they travel: twice one round trip's refill
// keeps a paced sender from waiting on its own lanes.
const REFILL_ROUND_TRIPS = 2;

interface Window {
	startedAt: number;
	/** Round trips of the requests started in this window. */
	latencies: number[];
	/** Those of them started while the pool was full: a window that follows a step up begins below its limit. */
	loadedLatencies: number[];
	peakInFlight: number;
}

/** The limit before the latest step up, and the answers per second it delivered. */
interface Step {
	fromLimit: number;
	fromRate: number;
	/** The rate and round trip of the first slow round trip at the new limit, while a second one is awaited. */
	firstRate?: number;
	firstRoundTrip?: number;
}

/**
 * A low quantile of the round trips, not their median: an event-loop stall on a busy n8n host delays every
 * request in flight across it, while a provider that queues delays every request, the luckiest one too.
 */
function quantile(values: number[], share: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor((sorted.length - 1) * share)];
}

/** The rise in answers per second that makes a step from `from` to `to` in flight worth its longer queue. */
function requiredGain(from: number, to: number): number {
	return Math.max(MIN_GAIN, GAIN_SHARE * (to / from - 1));
}

/**
 * How many requests may be on the wire, found while sending: it grows while the provider's latency holds, and
 * shrinks when latency rises (a queue is forming at the provider), on a 429, and when the provider's budget
 * cannot pay for what is in flight. Like Netflix's concurrency-limits (a gradient of the fastest round trip over
 * the current one, plus a square-root probe) and the AWS SDK's adaptive mode (a multiplicative cut on throttling).
 *
 * A rise in latency alone cannot tell a provider's queue from n8n's own: n8n spends milliseconds of CPU on every
 * request, so on a fast provider the event loop is the queue, and more in flight still delivers more answers per
 * second. So a step up that raised the latency is judged by what it delivered (Little's law: in flight ÷ round
 * trip, as TCP Vegas and BBR do): kept when the answers per second rose with it, undone when they did not.
 *
 * Decisions are made once per round trip: a window closes when as many requests as the limit, all started after
 * the previous decision, have answered, so every decision sees the effect of the one before.
 */
export class AdaptiveConcurrencyLimit {
	readonly upperBound: number;

	private limit: number;

	private slowStart: boolean;

	private fastestRoundTrip = Number.POSITIVE_INFINITY;

	/** The round trip at the last step up that paid for its rise in latency: a queue that is worth its wait. */
	private acceptedRoundTrip = 0;

	private latestRoundTrip: number | undefined;

	private window: Window;

	private lastStep: Step | undefined;

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
		const loaded = this.inFlight >= this.current;
		this.window.peakInFlight = Math.max(this.window.peakInFlight, this.inFlight);
		const sending = request();
		// Only observed here: the caller gets the rejection exactly as the transport made it.
		void sending.then(
			() => {
				this.inFlight--;
				this.recordAnswer(startedAt, loaded);
			},
			(error: unknown) => {
				this.inFlight--;
				const kind = failureKindOf(error);
				if (kind === 'rate_limited') this.recordThrottled(startedAt);
				else if (kind !== 'not_sent') this.recordAnswer(startedAt, loaded);
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

	private recordAnswer(startedAt: number, loaded: boolean): void {
		const roundTrip = this.clock.now() - startedAt;
		this.latestRoundTrip = roundTrip;
		if (startedAt < this.window.startedAt) return;
		this.window.latencies.push(roundTrip);
		if (loaded) this.window.loadedLatencies.push(roundTrip);
		if (this.window.latencies.length >= this.current) this.decide();
	}

	private decide(): void {
		const { latencies, loadedLatencies, peakInFlight } = this.window;
		// Requests started while the pool was still filling after a step up met a shorter queue than the limit makes.
		const samples = loadedLatencies.length * 2 >= latencies.length ? loadedLatencies : latencies;
		const luckyRoundTrip = quantile(samples, LUCKY_QUANTILE);
		// Slow start steps by half: one step too far costs a provider at its knee 1.5 × its latency. So it reads
		// the median, which no few early answers can hold down; past it, the luckiest tenth rides out stalls.
		const roundTrip = this.slowStart ? quantile(samples, 0.5) : luckyRoundTrip;
		// A limit the run never filled (a paced run, the last items) taught nothing about a higher one.
		const filled = peakInFlight >= this.current;
		// Little's law: what the limit delivers is as many answers per round trip as it holds in flight.
		const rate = this.current / quantile(samples, 0.5);
		const step = this.lastStep;
		this.lastStep = undefined;
		this.fastestRoundTrip = Math.min(this.fastestRoundTrip, luckyRoundTrip);
		const tolerated = Math.max(
			this.fastestRoundTrip * LATENCY_TOLERANCE,
			this.fastestRoundTrip + HOST_QUEUEING_MS,
			this.acceptedRoundTrip * ACCEPTED_TOLERANCE,
		);
		if (roundTrip <= tolerated) {
			this.slowRoundTrips = 0;
			if (filled) this.stepUp(rate);
			this.window = this.freshWindow();
			return;
		}
		if (step && filled) {
			// On a fast provider one round trip's rate is as noisy as n8n's event loop; a step is judged on two.
			if (step.firstRate === undefined) {
				this.lastStep = { ...step, firstRate: rate, firstRoundTrip: roundTrip };
				this.window = this.freshWindow();
				return;
			}
			const stepRate = (step.firstRate + rate) / 2;
			if (stepRate >= step.fromRate * (1 + requiredGain(step.fromLimit, this.limit))) {
				// More in flight bought more answers: the queue is worth its wait. Slow start's steps are large enough
				// to tell a real gain from jitter, so only they make its latency the new normal; a probe that paid is
				// kept, and the next one waits for the latency to hold.
				if (this.slowStart) {
					// A stall only ever slows a round trip: the better of the two is what this limit delivers.
					this.acceptedRoundTrip = Math.min(step.firstRoundTrip ?? roundTrip, roundTrip);
					this.stepUp(Math.max(step.firstRate, rate));
				}
				this.window = this.freshWindow();
				return;
			}
			// The step bought nothing but a longer queue: back to where it was, and only probe from there.
			this.limit = step.fromLimit;
			this.afterDecrease();
			return;
		}
		this.slowRoundTrips++;
		const slowEnough = this.slowStart ? 1 : SLOW_ROUND_TRIPS_TO_CUT;
		if (this.slowRoundTrips < slowEnough) {
			this.window = this.freshWindow();
			return;
		}
		if (this.current === MIN_LIMIT) {
			// Still slow with one request in flight: the provider got slower for everyone, not because of us.
			// That latency is its new unloaded one, and the search starts again from here.
			this.fastestRoundTrip = luckyRoundTrip;
			this.acceptedRoundTrip = 0;
			this.slowStart = true;
			this.slowRoundTrips = 0;
			if (filled) this.stepUp(rate);
			this.window = this.freshWindow();
			return;
		}
		const deepestCut = this.slowStart ? MAX_SLOW_START_CUT : MAX_PROBE_CUT;
		this.limit = Math.max(MIN_LIMIT, this.limit * Math.max(deepestCut, tolerated / roundTrip));
		this.afterDecrease();
	}

	private stepUp(rate: number): void {
		const grown = this.slowStart
			? this.limit * SLOW_START_GROWTH
			: this.limit + Math.sqrt(this.limit);
		const next = Math.min(this.upperBound, grown);
		if (next > this.limit) this.lastStep = { fromLimit: this.limit, fromRate: rate };
		this.limit = next;
	}

	private afterDecrease(): void {
		this.slowStart = false;
		this.slowRoundTrips = 0;
		this.lastStep = undefined;
		this.lastDecreaseAt = this.clock.now();
		this.window = this.freshWindow();
	}

	private freshWindow(): Window {
		return {
			startedAt: this.clock.now(),
			latencies: [],
			loadedLatencies: [],
			peakInFlight: this.inFlight,
		};
	}
}
