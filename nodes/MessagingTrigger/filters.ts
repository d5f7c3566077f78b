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
