import { randomUUID } from 'crypto';

import { RecentlyUsedMap } from '../shared/recentlyUsedMap';
import {
	EventIdsSave,
	readSavedIds,
	type SavedEventIds,
	type SavedEventIdsSource,
} from './savedEventIds';

export type { SavedEventIds } from './savedEventIds';

/** Event ids one trigger remembers in one n8n process: about 1 MB at the most. */
export const REMEMBERED_EVENT_IDS = 10_000;
/**
 * Event ids saved in the workflow's static data, for other n8n processes and for restarts. Bounded, so what n8n
 * writes per accepted delivery does not grow with the ids remembered.
 */
export const SAVED_EVENT_IDS = 1_000;

/** Insertion-ordered ids, the oldest evicted beyond `capacity`; every operation is O(1). */
export class RecentEventIds {
	private readonly ids = new Set<string>();

	constructor(
		storedIds: unknown = [],
		private readonly capacity: number = SAVED_EVENT_IDS,
	) {
		if (Array.isArray(storedIds)) {
			for (const id of storedIds.slice(-capacity)) if (typeof id === 'string') this.add(id);
		}
	}

	has(eventId: string): boolean {
		return this.ids.has(eventId);
	}

	add(eventId: string): void {
		this.ids.delete(eventId);
		this.ids.add(eventId);
		if (this.ids.size > this.capacity) this.ids.delete(this.ids.values().next().value as string);
	}

	delete(eventId: string): boolean {
		return this.ids.delete(eventId);
	}

	get size(): number {
		return this.ids.size;
	}

	/** The newest `count` ids that `keep` accepts, oldest first. */
	newest(count: number, keep: (id: string) => boolean = () => true): string[] {
		const all = [...this.ids].filter(keep);
		return all.slice(Math.max(0, all.length - count));
	}

	toJSON(): string[] {
		return [...this.ids];
	}
}

const NOT_READ_YET = Symbol('not read yet');

/**
 * One trigger's memory of accepted event ids in this process. Claiming is synchronous, so two deliveries of one
 * event that overlap in this process can never both claim it. Saved ids of other processes are merged in as
 * their versions appear in static data. Every delivery that claimed something writes a save, which n8n serialises
 * only when it saves it (see EventIdsSave): n8n answers after saving, so a sender's retry, wherever it arrives,
 * finds the id saved, whatever order n8n's concurrent saves land in.
 */
export class EventIdMemory implements SavedEventIdsSource {
	private readonly ids = new RecentEventIds([], REMEMBERED_EVENT_IDS);
	private readonly writer = randomUUID();
	private version = 0;
	private lastMergedStamp: unknown = NOT_READ_YET;
	private unsavedWarningDue = true;

	/** Our own saves are skipped: this memory already holds their ids, and not the ones it gave up since. */
	merge(saved: SavedEventIds): void {
		const stamp = saved.recentEventIdsStamp;
		if (stamp !== undefined && stamp === this.lastMergedStamp) return;
		if (typeof stamp === 'string' && stamp.startsWith(`${this.writer}:`)) return;
		this.lastMergedStamp = stamp;
		for (const id of readSavedIds(saved.recentEventIds))
			if (!this.ids.has(id)) {
				this.ids.add(id);
				this.version++;
			}
	}

	/** True when this delivery is the first to claim the event. */
	claim(eventId: string): boolean {
		if (this.ids.has(eventId)) return false;
		this.ids.add(eventId);
		this.version++;
		return true;
	}

	/**
	 * Claims whose execution n8n has not confirmed yet, with the outcome that will: a retry of one of them must not be
	 * answered 200 before that, or it is lost if n8n then fails to start the first.
	 */
	private readonly unconfirmed = new Map<string, Promise<boolean>>();

	/** Unconfirmed ids whose execution n8n has stored: every save holds them from then on. */
	private readonly stored = new Set<string>();

	/** Settles with `outcome`: each id confirmed when it is true, released for the sender's retry when false. */
	awaitConfirmation(eventIds: string[], outcome: Promise<boolean>): void {
		for (const id of eventIds) this.unconfirmed.set(id, outcome);
		void outcome.then((started) => {
			for (const id of eventIds) {
				if (this.unconfirmed.get(id) === outcome) this.unconfirmed.delete(id);
				this.stored.delete(id);
				if (!started) this.release(id);
			}
			// What a save holds changed: a reader must not skip it as a version already merged.
			this.version++;
		});
	}

	/**
	 * n8n serialises an execution's own save only after it has stored the execution, and sends a process's saves to
	 * the database in the order it serialises them: saves from now on hold these ids, and no earlier one lands after.
	 */
	executionStored(eventIds: Iterable<string>): void {
		for (const id of eventIds)
			if (this.unconfirmed.has(id) && !this.stored.has(id)) {
				this.stored.add(id);
				this.version++;
			}
	}

	/** The outcome a repeat of this event must wait for; undefined once it ran or it was never claimed here. */
	confirmationOf(eventId: string): Promise<boolean> | undefined {
		return this.unconfirmed.get(eventId);
	}

	/** Gives up a claim whose event never reached n8n, so the sender's retry runs it. */
	release(eventId: string): void {
		if (this.ids.delete(eventId)) this.version++;
	}

	/** A write of the newest ids into static data for the execution holding `own`, read when n8n serialises it. */
	newSave(own: Iterable<string> = []): EventIdsSave {
		return new EventIdsSave(this, new Set(own));
	}

	/**
	 * Ids whose execution n8n has not stored yet are left out, but for the save's own execution: a save of another
	 * delivery that reached the database with them, then a crash before their execution existed, would make the other
	 * processes and the restarted n8n answer every retry of them as a duplicate, and the events would be lost (a
	 * loaded queue-mode webhook process takes seconds to store an execution; one SIGKILLed then lost 173 events).
	 */
	savedIds(own: ReadonlySet<string> = new Set()): string[] {
		return this.ids.newest(
			SAVED_EVENT_IDS,
			(id) => own.has(id) || !this.unconfirmed.has(id) || this.stored.has(id),
		);
	}

	stamp(): string {
		return `${this.writer}:${this.version}`;
	}

	/** True the first time only: a save that did not reach the database is reported once per trigger and process. */
	takeUnsavedWarning(): boolean {
		const due = this.unsavedWarningDue;
		this.unsavedWarningDue = false;
		return due;
	}
}

/** Triggers whose memory one process keeps; the least recently used beyond it is dropped (about 1 MB each at most). */
export const REMEMBERED_TRIGGERS = 100;

/**
 * Process-wide on purpose: n8n loads a fresh copy of the workflow, static data included, for every webhook
 * request, and offers a node no shared store it could claim an id in atomically. Keyed by workflow and node.
 */
const memories = new RecentlyUsedMap<string, EventIdMemory>(REMEMBERED_TRIGGERS);

export function eventIdMemoryOf(workflowId: string, nodeId: string): EventIdMemory {
	const key = `${workflowId}/${nodeId}`;
	return memories.getOrCreate(key, () => new EventIdMemory());
}

export function rememberedTriggerCount(): number {
	return memories.size;
}
