export const RECENT_EVENT_ID_CAPACITY = 1000;

/**
 * Remembers the most recent event ids, oldest first, evicting beyond `capacity`.
 * It serialises to a plain string array so it can live in workflow static data.
 */
export class RecentEventIds {
	private readonly ids: Set<string>;

	constructor(
		storedIds: unknown,
		private readonly capacity: number = RECENT_EVENT_ID_CAPACITY,
	) {
		const validIds = Array.isArray(storedIds)
			? storedIds.filter((id): id is string => typeof id === 'string')
			: [];
		this.ids = new Set(validIds.slice(-capacity));
	}

	has(eventId: string): boolean {
		return this.ids.has(eventId);
	}

	add(eventId: string): void {
		this.ids.delete(eventId);
		this.ids.add(eventId);
		while (this.ids.size > this.capacity) {
			const oldest = this.ids.values().next().value as string;
			this.ids.delete(oldest);
		}
	}

	get size(): number {
		return this.ids.size;
	}

	toJSON(): string[] {
		return [...this.ids];
	}
}
