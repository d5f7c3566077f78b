import type { EventIdMemory } from './deduplication';
import type { DeliveryEvent } from './events';

export interface EventFilters {
	channels: string[];
	statuses: string[];
}

/** An empty selection means "all", so a new status from the provider is never dropped by default. */
function allows(selection: string[], value: string): boolean {
	return selection.length === 0 || selection.includes(value.toLowerCase());
}

export function matchesFilters(event: DeliveryEvent, filters: EventFilters): boolean {
	return allows(filters.channels, event.channel) && allows(filters.statuses, event.status);
}

export interface TriagedEvents {
	accepted: DeliveryEvent[];
	duplicates: number;
	filteredOut: number;
}

/**
 * Splits verified events into those that start the workflow, repeats and filtered-out ones.
 * Accepted ids are claimed in `memory`; without it, nothing counts as a repeat.
 */
export function triageEvents(events: DeliveryEvent[], filters: EventFilters, memory: EventIdMemory | undefined): TriagedEvents {
	const triaged: TriagedEvents = { accepted: [], duplicates: 0, filteredOut: 0 };
	for (const event of events) {
		if (!matchesFilters(event, filters)) triaged.filteredOut++;
		else if (memory && !memory.claim(event.event_id)) triaged.duplicates++;
		else triaged.accepted.push(event);
	}
	return triaged;
}
