import { LONGEST_BUDGET_WAIT_MS, type ProviderBudget } from '../vocabulary/providerBudget';
import type { Clock } from './clock';
import { InFlightRequests } from './inFlightRequests';
import { ProviderBudgetShare, ProviderBudgetSpent } from './providerBudgetShare';
import { SendQueue, type SendTurn } from './sendQueue';
import { StartRateMeter } from './startRateMeter';

export type { SendTurn };

export interface AdaptiveRateSettings {
	/** The user's Max Messages per Second; 0 = no limit of their own, only what the provider's 429s teach. */
	maxPerSecond: number;
	/** Share of the achieved rate kept after a 429 (CUBIC's β). */
	decreaseFactor?: number;
	/** How fast the rate climbs back after a decrease, in messages/s per s³ (CUBIC's C); slower at low rates, see MIN_RECOVERY_SECONDS. */
	growth?: number;
}

// The AWS SDK's adaptive retry mode uses the same two constants.
const DEFAULT_DECREASE_FACTOR = 0.7;
const DEFAULT_GROWTH = 0.4;
const MIN_RATE = 0.5;
// A Retry-After is at least a second, so the items refused at the peak come back about a second after the decrease;
// at low rates the cubic curve alone would already be back at the peak by then and refuse them a second time.
const MIN_RECOVERY_SECONDS = 3;

interface Decrease {
	at: number;
	/** The rate that was being achieved when the provider said 429. */
	peakRate: number;
	/** Seconds until the cubic curve is back at `peakRate`. */
	recoverySeconds: number;
	/** The cubic's scale for this decrease, in messages/s per s³. */
	growth: number;
}

/**
 * Spaces request starts evenly (one slot every 1000 / rate ms) instead of letting a burst through and then
 * sleeping, at a rate that adapts to the provider: unlimited (or the user's limit) until a 429, then a
 * multiplicative decrease below the rate being achieved, then a cubic climb back (like TCP CUBIC and the AWS SDK's
 * adaptive mode), never above the user's limit. Retries are served before first tries. Once the provider's budget
 * is spent, nothing starts until the reset it named (README: Throughput and retries).
 */
export class AdaptiveSendRateLimiter {
	private readonly userLimit: number;

	private readonly decreaseFactor: number;

	private readonly growth: number;

	private lastDecrease: Decrease | undefined;

	private lastSlotAt = Number.NEGATIVE_INFINITY;

	private readonly waiting = new SendQueue();

	private pumping = false;

	private readonly achieved = new StartRateMeter();

	private readonly providerShare = new ProviderBudgetShare();

	private readonly inFlight = new InFlightRequests();

	constructor(
		settings: AdaptiveRateSettings,
		private readonly clock: Clock,
	) {
		this.userLimit = settings.maxPerSecond > 0 ? settings.maxPerSecond : Number.POSITIVE_INFINITY;
		this.decreaseFactor = settings.decreaseFactor ?? DEFAULT_DECREASE_FACTOR;
		this.growth = settings.growth ?? DEFAULT_GROWTH;
	}

	/** Messages per second allowed at `now`; Infinity while there is no user limit, budget or 429 to go by. */
	rateAt(now: number): number {
		return Math.min(this.userLimit, this.providerShare.rateAt(now), this.recoveringRateAt(now));
	}

	/** What the provider's last answer said is left of the account's rate, shared with every other sender. */
	recordProviderBudget(budget: ProviderBudget): void {
		this.providerShare.record(budget, this.clock.now(), this.inFlight.count);
	}

	/** While the provider's budget is spent, when it is whole again: a wait that says nothing of the provider's load. */
	budgetSpentUntil(): number | undefined {
		return this.providerShare.spentUntil(this.clock.now());
	}

	private recoveringRateAt(now: number): number {
		if (!this.lastDecrease) return Number.POSITIVE_INFINITY;
		const { at, peakRate, recoverySeconds, growth } = this.lastDecrease;
		const offset = (now - at) / 1000 - recoverySeconds;
		return Math.max(MIN_RATE, peakRate + growth * offset ** 3);
	}

	/** Resolves when the caller may send, with the time it was let go (to hand back to `recordThrottled`). */
	async acquire(turn: SendTurn = 'first'): Promise<number> {
		const now = this.clock.now();
		const free = this.providerShare.spentUntil(now) === undefined;
		if (!this.pumping && free && this.rateAt(now) === Number.POSITIVE_INFINITY) {
			this.recordStart(now);
			return now;
		}
		return await new Promise<number>((resolve, reject) => {
			this.waiting.add(turn, { resolve, reject });
			if (!this.pumping) void this.pump();
		});
	}

	/**
	 * A 429 for a request let go before the last decrease was already answered by it: the requests in flight
	 * during an overshoot all come back 429 and must not cut the rate once each.
	 */
	recordThrottled(startedAt: number): void {
		if (this.lastDecrease && startedAt < this.lastDecrease.at) return;
		const now = this.clock.now();
		const achieved = Math.min(this.rateAt(now), this.achieved.ratePerSecond(now));
		const peakRate = Math.max(MIN_RATE, achieved);
		const drop = peakRate * (1 - this.decreaseFactor);
		const recoverySeconds = Math.max(MIN_RECOVERY_SECONDS, Math.cbrt(drop / this.growth));
		this.lastDecrease = { at: now, peakRate, recoverySeconds, growth: drop / recoverySeconds ** 3 };
	}

	/** Sends through the limiter and lets an answer that was a 429 (as `isThrottled` reads it) slow every later send. */
	async send<T>(
		turn: SendTurn,
		request: () => Promise<T>,
		isThrottled: (answer: T) => boolean,
	): Promise<T> {
		const startedAt = await this.acquire(turn);
		this.inFlight.started();
		const sending = request();
		// Only observed here: the caller gets the answer (or rejection) exactly as the transport made it.
		void sending.then(
			(answer) => {
				if (isThrottled(answer)) this.recordThrottled(startedAt);
				this.inFlight.finished();
			},
			() => this.inFlight.finished(),
		);
		return await sending;
	}

	/**
	 * One loop hands out slots while anyone waits. A slot is due one interval after the previous slot, not after
	 * the moment the loop woke up: timers fire late, and counting from the wake-up would lose that lateness on
	 * every send.
	 */
	private async pump(): Promise<void> {
		this.pumping = true;
		this.resumeSlotsAt(this.clock.now());
		while (!this.waiting.isEmpty) {
			const now = this.clock.now();
			const spentUntil = this.providerShare.spentUntil(now);
			if (spentUntil !== undefined) {
				await this.waitForBudget(spentUntil, now);
				this.resumeSlotsAt(this.clock.now());
				continue;
			}
			const dueAt = this.lastSlotAt + 1000 / this.rateAt(now);
			if (dueAt > now) {
				await this.clock.sleep(dueAt - now);
				continue;
			}
			this.lastSlotAt = dueAt;
			this.recordStart(now);
			this.waiting.next()!.resolve(now);
		}
		this.pumping = false;
	}

	/** After a pause (idle, or a budget reset), slots restart one interval apart: a pause is no backlog to burst. */
	private resumeSlotsAt(now: number): void {
		this.lastSlotAt = Math.max(this.lastSlotAt, now - 1000 / this.rateAt(now));
	}

	// Answers still on the wire tell the budget better than the count that spent it; then wait for the reset, or
	// fail every waiting item at once when it is too far away to wait for.
	private async waitForBudget(spentUntil: number, now: number): Promise<void> {
		if (this.inFlight.count > 0) return await this.inFlight.nextSettled();
		if (spentUntil - now <= LONGEST_BUDGET_WAIT_MS) return await this.clock.sleep(spentUntil - now);
		const spent = new ProviderBudgetSpent(spentUntil, now);
		for (let waiter = this.waiting.next(); waiter; waiter = this.waiting.next())
			waiter.reject(spent);
	}

	private recordStart(now: number): void {
		this.achieved.recordStart(now);
		this.providerShare.recordStart();
	}
}
