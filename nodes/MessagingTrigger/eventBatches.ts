import { sleep } from 'n8n-workflow';

import type { MessagingEvent } from './events';

export interface BatchLimits {
	/** How long a batch stays open after its first delivery. */
	waitMs: number;
	/** A batch closes as soon as it holds this many events. */
	maxEvents: number;
}

/**
 * A batch also closes when no delivery joined it for a tenth of its wait (50 ms at least): a sender whose
 * open requests are all held in the batch cannot send more until it is answered, so waiting longer only adds latency.
 */
export const QUIET_SHARE_OF_WAIT = 0.1;
export const MIN_QUIET_MS = 50;
/**
 * A leader's timer firing this late means n8n's event loop was busy: starting an execution, or at its default
 * expression engine building an isolate for a request. Deliveries that arrived meanwhile wait unread behind the timer,
 * so that was not quiet: the quiet time counts again from there. The timer is checked at least this often.
 */
export const STALL_MS = 50;

export type BatchOutcome = 'started' | 'not_started';

/**
 * Deliveries that reached a batch slower than this were slow for n8n to take (at its default expression engine it
 * builds an isolate, ~85 ms of CPU and 8 to 10 MB, for each request). Answered together, the sender's next ones would
 * arrive together and n8n would build all their isolates at once: about 3 GB at 200 open requests. So such a batch is
 * answered as far apart as it arrived. A faster batch is answered at once: spreading it would hold the sender's open
 * requests longer and slow it (0.65 against 0.79 of n8n's floor under lazy acquire), for no memory.
 */
export const SPREAD_ANSWERS_BELOW_PER_SECOND = 100;
/**
 * Fewer deliveries answered together cost n8n under 0.5 GB of isolates at once. A small sender's few open requests
 * are better answered together: spread, its next ones would arrive spread too, and each batch would stay open longer.
 */
export const SPREAD_ANSWERS_FROM_DELIVERIES = 50;

/**
 * Deliveries to one trigger in one process, held until n8n has created the execution that carries their events.
 * The first delivery leads: it waits for the batch to close and hands every event to n8n; the others wait for
 * the outcome, so each is answered 2xx only once the execution exists.
 */
export class EventBatch {
	private readonly deliveries: MessagingEvent[][] = [];
	private events = 0;
	private open = true;
	private readonly openedAt = Date.now();
	private lastJoinAt = this.openedAt;
	private lastStallEndedAt = this.openedAt;
	private wakeLeader: () => void = () => undefined;
	private readonly woken = new Promise<void>((resolve) => (this.wakeLeader = resolve));
	private settleOutcome: (outcome: BatchOutcome) => void = () => undefined;
	readonly outcome = new Promise<BatchOutcome>((resolve) => (this.settleOutcome = resolve));

	constructor(private readonly limits: BatchLimits) {}

	get isOpen(): boolean {
		return this.open;
	}

	get eventCount(): number {
		return this.events;
	}

	/** A delivery that would push a non-empty batch past its maximum goes to the next batch instead. */
	hasRoomFor(eventCount: number): boolean {
		return this.events === 0 || this.events + eventCount <= this.limits.maxEvents;
	}

	/** Returns how long after the batch opened this delivery joined it. */
	add(events: MessagingEvent[]): number {
		this.deliveries.push(events);
		this.events += events.length;
		this.lastJoinAt = Date.now();
		if (this.events >= this.limits.maxEvents) this.close();
		return this.lastJoinAt - this.openedAt;
	}

	close(): void {
		this.open = false;
		this.wakeLeader();
	}

	/** The leader's wait: until full, the wait is over, or the batch went quiet. Returns every event, in arrival order. */
	async collect(): Promise<MessagingEvent[]> {
		const quietMs = Math.max(MIN_QUIET_MS, this.limits.waitMs * QUIET_SHARE_OF_WAIT);
		while (this.open) {
			const quietFrom = Math.max(this.lastJoinAt, this.lastStallEndedAt);
			const deadline = Math.min(this.openedAt + this.limits.waitMs, quietFrom + quietMs);
			const left = deadline - Date.now();
			if (left <= 0) break;
			const step = Math.min(left, STALL_MS);
			// Cancelled once woken: a leader must not leave a timer behind it.
			const timer = new AbortController();
			const due = Date.now() + step;
			await Promise.race([sleep(step, timer.signal).catch(() => undefined), this.woken]);
			timer.abort();
			if (Date.now() - due > STALL_MS) this.lastStallEndedAt = Date.now();
		}
		this.open = false;
		return this.deliveries.flat();
	}

	/** How long after the execution exists to answer a delivery that joined `joinedAfterMs` after the first. */
	answerDelayMs(joinedAfterMs: number): number {
		if (this.deliveries.length < SPREAD_ANSWERS_FROM_DELIVERIES) return 0;
		const spanMs = this.lastJoinAt - this.openedAt;
		const arrivedPerSecond = (this.deliveries.length - 1) / (spanMs / 1000);
		return arrivedPerSecond < SPREAD_ANSWERS_BELOW_PER_SECOND ? joinedAfterMs : 0;
	}

	settle(outcome: BatchOutcome): void {
		this.settleOutcome(outcome);
	}
}

/**
 * What one process holds at once, over all its triggers: every held delivery is an open connection, and its events
 * sit in memory until n8n has the execution. Past either cap, deliveries are turned away before anything is claimed.
 */
export const MAX_HELD_EVENTS = 10_000;
export const MAX_HELD_DELIVERIES = 500;

const openBatches = new Map<string, EventBatch>();
const held = { events: 0, deliveries: 0 };

export function canHold(eventCount: number): boolean {
	return held.events + eventCount <= MAX_HELD_EVENTS && held.deliveries < MAX_HELD_DELIVERIES;
}

export function heldNow(): { events: number; deliveries: number } {
	return { ...held };
}

/** True while the trigger `key` collects a batch: its leader will hand it to n8n after the one handing over now. */
export function isCollecting(key: string): boolean {
	return openBatches.get(key)?.isOpen === true;
}

export interface JoinedBatch {
	batch: EventBatch;
	/** The first delivery of the batch: it waits for the batch to close and hands the events to n8n. */
	leads: boolean;
	/** How long after the batch's first delivery this one arrived. */
	joinedAfterMs: number;
}

/** Adds one delivery's events to its trigger's open batch, or opens one. `key` names the workflow and trigger node. */
export function joinBatch(key: string, events: MessagingEvent[], limits: BatchLimits): JoinedBatch {
	let batch = openBatches.get(key);
	if (batch?.isOpen && !batch.hasRoomFor(events.length)) batch.close();
	const leads = !batch?.isOpen;
	if (!batch || leads) {
		const opened = new EventBatch(limits);
		openBatches.set(key, opened);
		void opened.outcome.then(() => {
			if (openBatches.get(key) === opened) openBatches.delete(key);
		});
		batch = opened;
	}
	const joinedAfterMs = batch.add(events);
	held.events += events.length;
	held.deliveries++;
	void batch.outcome.then(() => {
		held.events -= events.length;
		held.deliveries--;
	});
	return { batch, leads, joinedAfterMs };
}
