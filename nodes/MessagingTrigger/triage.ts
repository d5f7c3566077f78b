import type { RecentEventIds } from './deduplication';
import type { DeliveryEvent } from './events';
import { matchesFilters, type EventFilters } from './filters';

export interface TriagedEvents {
	accepted: DeliveryEvent[];
	duplicates: number;
	filteredOut: number;
}

/**
 * Splits verified events into those that start the workflow, repeats and filtered-out ones.
 * Accepted ids are added to `recentEventIds`; without it, nothing counts as a repeat.
 */
export function triageEvents(
	events: DeliveryEvent[],
	filters: EventFilters,
	recentEventIds: RecentEventIds | undefined,
): TriagedEvents {
	const triaged: TriagedEvents = { accepted: [], duplicates: 0, filteredOut: 0 };
	for (const event of events) {
		if (recentEventIds?.has(event.event_id)) {
			triaged.duplicates++;
		} else if (!matchesFilters(event, filters)) {
			triaged.filteredOut++;
		} else {
			triaged.accepted.push(event);
			recentEventIds?.add(event.event_id);
		}
	}
	return triaged;
}
