import type { Clock } from './clock';
import type { FailureKind } from '../vocabulary/failureKind';
import type { ProviderBudget } from '../vocabulary/providerBudget';
import { RunPace, startingSearch, type PaceSlot, type SearchState } from './paceMemory';
import {
	openWindow,
	readWindow,
	recordSample,
	type RoundTripWindow,
	type WindowReading,
} from './roundTripWindow';
import { judgeStep, type Step } from './stepJudgement';
import * as tuning from './concurrencyTuning';

/** A request as it left: when, its place in the run, and how many were in flight with it (itself included). */
interface SentRequest {
	at: number;
	number: number;
	inFlight: number;
}

/**
 * How many requests may be on the wire, found while sending, in the manner of Netflix's concurrency-limits (a
 * gradient of the fastest round trip over the current one, a square-root probe) and the AWS SDK's adaptive mode (a
 * multiplicative cut on throttling): it grows while the round trip holds, and shrinks on a 429 and when the
 * provider's budget cannot pay for what is in flight. Slow start ends when a step lengthened the round trip in its
 * own burst and in the round trip after it, undoing the step (as TCP's HyStart leaves slow start on a rise in
 * delay). Past it, a longer round trip alone cannot tell a provider's queue from n8n's own (n8n spends milliseconds
 * of CPU on every request), so a probe that lengthened it is judged by what it delivered (Little's law, as TCP Vegas
 * and BBR read it): kept when the answers per second rose with it, undone when they did not. Decisions are made
 * once per round trip: a window closes when as many requests as the limit, all started after the previous
 * decision, have answered, so every decision sees the one before.
 */
export class AdaptiveConcurrencyLimit {
	readonly upperBound: number;

	/** What the search has found so far: all a later run needs to go on from here. */
	private search: SearchState;

	private latestRoundTrip: number | undefined;

	private window: RoundTripWindow;

	private lastStep: Step | undefined;

	private lastDecreaseAt = Number.NEGATIVE_INFINITY;

	private slowRoundTrips = 0;

	private inFlight = 0;

	/** Requests started so far: a window counts those it numbers from, not those started in the same millisecond. */
	private started = 0;

	private readonly pace: RunPace;

	/** `upperBound`: Max Concurrent Requests when the user set it; without it the limit finds its own ceiling. */
	constructor(
		settings: { upperBound?: number; pace?: PaceSlot },
		private readonly clock: Clock,
	) {
		const userBound = settings.upperBound ?? 0;
		const automatic = userBound <= 0;
		this.upperBound = automatic ? tuning.AUTOMATIC_UPPER_BOUND : Math.floor(userBound);
		// Only the automatic limit keeps a pace, in the slot of the provider it sends to (paceMemory.ts).
		this.pace = new RunPace(automatic ? settings.pace : undefined);
		this.search = startingSearch(this.upperBound, automatic, this.pace, clock.now());
		this.window = this.freshWindow();
	}

	/** How many requests may be in flight now: a whole number from 1 to the upper bound. */
	get current(): number {
		return Math.max(tuning.MIN_LIMIT, Math.min(this.upperBound, Math.floor(this.search.limit)));
	}

	/**
	 * Times `request` and learns from its answer: a success is a latency sample, a 429 a throttle; a request that
	 * never reached the provider says nothing about it. The answer is passed on unchanged.
	 */
	async track<T>(
		request: () => Promise<T>,
		failureKindOf: (answer: T) => FailureKind | undefined,
	): Promise<T> {
		const sent: SentRequest = {
			at: this.clock.now(),
			number: this.started++,
			inFlight: ++this.inFlight,
		};
		this.window.peakInFlight = Math.max(this.window.peakInFlight, this.inFlight);
		const sending = request();
		// Only observed here: the caller gets the answer (or rejection) exactly as the transport made it.
		void sending.then(
			(answer) => this.recordSettled(sent, failureKindOf(answer) ?? 'answered'),
			() => this.recordSettled(sent, 'final'),
		);
		return await sending;
	}

	private recordSettled(sent: SentRequest, kind: FailureKind | 'answered'): void {
		this.inFlight--;
		if (kind === 'not_sent') return;
		if (kind !== 'rate_limited') this.recordAnswer(sent);
		// The requests in flight when the provider first said 429 all come back 429; the cut made for the first one
		// already answers them, so only a request started after the last cut cuts again.
		else if (sent.at >= this.lastDecreaseAt) {
			this.search.limit = Math.max(tuning.MIN_LIMIT, this.search.limit * tuning.THROTTLE_DECREASE);
			this.pace.drop();
			this.afterDecrease();
		}
	}

	/** Never more in flight than the budget left, plus what refills while they travel, can pay for. */
	recordProviderBudget(budget: ProviderBudget): void {
		const affordable = tuning.affordableInFlight(budget, this.latestRoundTrip ?? 0);
		if (affordable >= this.search.limit) return;
		this.search.limit = affordable;
		this.pace.drop();
		this.afterDecrease();
	}

	private recordAnswer(sent: SentRequest): void {
		const roundTrip = this.clock.now() - sent.at;
		this.latestRoundTrip = roundTrip;
		// Those started before the window opened are counted in its `openedWith`, however close in time.
		if (sent.number < this.window.firstRequest) return;
		recordSample(this.window, roundTrip, sent.inFlight, this.current);
		if (this.window.latencies.length >= this.answersToDecide()) this.decide();
	}

	/**
	 * A window's requests start only as those in flight at its opening come back, so waiting for as many answers
	 * as the limit takes two round trips once answers spread. Slow start asks only whether the round trip held at
	 * the new limit, and the requests started the moment it rose answer that (the last of them met the new load):
	 * it decides on them, once per round trip. A window that did not rise (a step held after it read slow) waits for
	 * as many as the limit: the first answers of requests leaving one by one are the fastest of them, and a median
	 * of the first five let a step held at 36 in n8n read 165 ms where its round trip took 190, and grow to 54.
	 */
	private answersToDecide(): number {
		if (!this.search.slowStart) return this.current;
		const risen = this.current - this.window.openedWith;
		return risen < tuning.MIN_SLOW_START_ANSWERS ? this.current : risen;
	}

	private decide(): void {
		const reading = readWindow(this.window, this.current, this.search.slowStart);
		const step = this.lastStep;
		this.lastStep = undefined;
		const firstRoundTrip = this.search.fastestRoundTrip === Number.POSITIVE_INFINITY;
		// Every answer is a latency sample: the first of a step's burst can read it lower than a slow first round
		// trip did.
		this.search.fastestRoundTrip = Math.min(this.search.fastestRoundTrip, reading.fastest);
		// The limit grows only on a median that held (in slow start, of the requests that met its step's full load):
		// after an event-loop stall, the requests n8n sends at once meet an emptied queue, and their luck says
		// nothing of the limit. It shrinks only when the luckiest tenth is slow too: a stall delays every request in
		// flight across it, a provider that queues every request.
		const tolerated = tuning.toleratedRoundTrip(this.search.fastestRoundTrip);
		// A step that slowed one round trip is judged on the next whatever it reads, for the same reason.
		if (step?.firstRate !== undefined && reading.filled) this.settleStep(step, reading.rate);
		else if (reading.median <= tolerated) {
			this.slowRoundTrips = 0;
			if (reading.filled) this.stepUp(reading.rate, firstRoundTrip);
			this.window = this.freshWindow();
		} else if (step && reading.filled) {
			if (this.search.slowStart) this.afterSlowStartStep(step, reading.median);
			else this.settleStep(step, reading.rate);
		} else if (!this.search.slowStart && reading.lucky <= tolerated) {
			this.slowRoundTrips = 0;
			this.window = this.freshWindow();
		} else {
			const roundTrip = this.search.slowStart ? reading.median : reading.lucky;
			this.afterSlowRoundTrip(tolerated / roundTrip, reading);
		}
		this.pace.keep(this.search, this.clock.now());
	}

	/** A probe that bought nothing but a longer queue: back to where it started. */
	private undoStep(step: Step): void {
		this.search.limit = step.fromLimit;
		this.afterDecrease();
	}

	/**
	 * A step's requests leave n8n at once, and n8n spends milliseconds of CPU on each, back to back: a one-off cost
	 * that lands on the burst's last requests, on a slow host more than the tolerance. So a step that read slow holds
	 * at the same limit, as a rise with no step does, until SLOW_ROUND_TRIPS_TO_CUT round trips in a row read slow;
	 * the ones after the burst leave as answers come back: still slow, the queue is the provider's and slow start
	 * ends there; held, the search goes on growing.
	 */
	private afterSlowStartStep(step: Step, roundTrip: number): void {
		if (this.slowEnoughToCut()) this.leaveSlowStart(step, roundTrip);
		else this.lastStep = step;
	}

	/** Counts a slow round trip: true once SLOW_ROUND_TRIPS_TO_CUT in a row read slow, else the next is awaited. */
	private slowEnoughToCut(): boolean {
		this.slowRoundTrips++;
		if (this.slowRoundTrips >= tuning.SLOW_ROUND_TRIPS_TO_CUT) return true;
		this.window = this.freshWindow();
		return false;
	}

	/**
	 * Slow start ends on a step that lengthened the round trip, as TCP's HyStart does on a rise in delay: its
	 * windows are bursts (the step's requests leave at once, and n8n queues them behind each other), whose answers
	 * per second say little, so it does not wait to judge them. The limit goes back to what the provider answers
	 * unqueued (answers per millisecond, limit ÷ round trip, times the fastest round trip: the estimate of TCP Vegas
	 * and BBR), between where the step started and where it went; only probes follow, judged on what they deliver.
	 */
	private leaveSlowStart(step: Step, roundTrip: number): void {
		const unqueued = (this.search.limit * this.search.fastestRoundTrip) / roundTrip;
		this.search.limit = Math.max(step.fromLimit, Math.min(this.search.limit, unqueued));
		this.afterDecrease();
	}

	private settleStep(step: Step, rate: number): void {
		const verdict = judgeStep(step, this.search.limit, rate);
		if (verdict.kind === 'unpaid') {
			this.undoStep(step);
			return;
		}
		// Paid: the probe is kept, and the next one waits for the latency to hold.
		if (verdict.kind === 'awaitSecond') this.lastStep = verdict.step;
		this.window = this.freshWindow();
	}

	/**
	 * Slower than tolerated (`gradient`, tolerated ÷ round trip, below 1) with no step to blame: a queue forming at
	 * the provider, or a provider slowing down.
	 */
	private afterSlowRoundTrip(gradient: number, reading: WindowReading): void {
		if (!this.slowEnoughToCut()) return;
		if (this.current === tuning.MIN_LIMIT) {
			// Still slow with one request in flight: the provider got slower for everyone, not because of us.
			// That latency is its new unloaded one, and the search starts again from here.
			this.search.fastestRoundTrip = reading.lucky;
			this.search.slowStart = true;
			this.slowRoundTrips = 0;
			if (reading.filled) this.stepUp(reading.rate);
			this.window = this.freshWindow();
			return;
		}
		const { search } = this;
		const deepestCut = search.slowStart ? tuning.MAX_SLOW_START_CUT : tuning.MAX_PROBE_CUT;
		search.limit = Math.max(tuning.MIN_LIMIT, search.limit * Math.max(deepestCut, gradient));
		this.afterDecrease();
	}

	/** `first`: the run's first round trip, which read the provider's latency at few in flight, went well. */
	private stepUp(rate: number, first = false): void {
		const { limit, slowStart } = this.search;
		const grown = slowStart
			? Math.max(limit * tuning.SLOW_START_GROWTH, first ? tuning.SECOND_ROUND_TRIP_LIMIT : 0)
			: limit + Math.sqrt(limit);
		const next = Math.min(this.upperBound, grown);
		if (next > limit) this.lastStep = { fromLimit: limit, fromRate: rate };
		this.search.limit = next;
	}

	private afterDecrease(): void {
		this.search.slowStart = false;
		this.slowRoundTrips = 0;
		this.lastStep = undefined;
		this.lastDecreaseAt = this.clock.now();
		this.window = this.freshWindow();
	}

	private freshWindow(): RoundTripWindow {
		return openWindow(this.started, this.inFlight);
	}
}
