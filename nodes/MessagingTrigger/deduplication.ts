import { randomUUID } from 'crypto';

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

	delete(eventId: string): void {
		this.ids.delete(eventId);
	}

	get size(): number {
		return this.ids.size;
	}

	/** The newest `count` ids, oldest first. */
	newest(count: number): string[] {
		const all = [...this.ids];
		return all.slice(Math.max(0, all.length - count));
	}

	toJSON(): string[] {
		return [...this.ids];
	}
}

/** How the ids travel in static data; the stamp changes with every save, so a reader merges each version once. */
export interface SavedEventIds {
	recentEventIds?: unknown;
	recentEventIdsStamp?: unknown;
}

const NOT_READ_YET = Symbol('not read yet');

/**
 * One trigger's memory of accepted event ids in this process. Claiming is synchronous, so two deliveries of one
 * event that overlap in this process can never both claim it. Saved ids of other processes are merged in as
 * their versions appear in static data. Every delivery that claimed something is saved: n8n answers only after
 * saving, so a sender's retry, wherever it arrives, finds the id saved.
 */
export class EventIdMemory {
	private readonly ids = new RecentEventIds([], REMEMBERED_EVENT_IDS);
	private readonly writer = randomUUID();
	private lastMergedStamp: unknown = NOT_READ_YET;
	private saves = 0;
	private unsaved = 0;

	merge(saved: SavedEventIds): void {
		if (saved.recentEventIdsStamp === this.lastMergedStamp) return;
		this.lastMergedStamp = saved.recentEventIdsStamp;
		if (!Array.isArray(saved.recentEventIds)) return;
		for (const id of saved.recentEventIds)
			if (typeof id === 'string' && !this.ids.has(id)) this.ids.add(id);
	}

	/** True when this delivery is the first to claim the event. */
	claim(eventId: string): boolean {
		if (this.ids.has(eventId)) return false;
		this.ids.add(eventId);
		this.unsaved++;
		return true;
	}

	/** Gives up a claim whose event never reached n8n, so the sender's retry runs it. */
	release(eventId: string): void {
		this.ids.delete(eventId);
	}

	/** The static data to write now, or undefined when nothing was claimed since the last save. */
	takeSave(): { recentEventIds: string[]; recentEventIdsStamp: string } | undefined {
		if (this.unsaved === 0) return undefined;
		this.unsaved = 0;
		const stamp = `${this.writer}:${++this.saves}`;
		this.lastMergedStamp = stamp;
		return { recentEventIds: this.ids.newest(SAVED_EVENT_IDS), recentEventIdsStamp: stamp };
	}
}

/**
 * Process-wide on purpose: n8n loads a fresh copy of the workflow, static data included, for every webhook
 * request, and offers a node no shared store it could claim an id in atomically. Keyed by workflow and node.
 */
const memories = new Map<string, EventIdMemory>();

export function eventIdMemoryOf(workflowId: string, nodeId: string): EventIdMemory {
	const key = `${workflowId}/${nodeId}`;
	let memory = memories.get(key);
	if (!memory) {
		memory = new EventIdMemory();
		memories.set(key, memory);
	}
	return memory;
}
