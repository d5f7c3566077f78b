import type { IWebhookFunctions } from 'n8n-workflow';

import type { EventIdMemory } from './deduplication';
import {
	defaultEventsFor,
	eventKindOf,
	INBOUND_MESSAGE,
	type DeliveryEvent,
	type EventKind,
	type MessagingEvent,
} from './events';

export interface EventFilters {
	/** The event kinds that start the workflow; none selected starts nothing. */
	events: string[];
	/** Status-update filters: an inbound message has no status, and only WhatsApp has them. */
	channels: string[];
	statuses: string[];
}

/**
 * The node's selection. A node saved without Events gets its version's default; Channels and Statuses are hidden,
 * so unset, while status updates are not selected.
 */
export function eventFiltersOf(context: IWebhookFunctions): EventFilters {
	return {
		events: context.getNodeParameter(
			'events',
			defaultEventsFor(context.getNode().typeVersion),
		) as string[],
		channels: context.getNodeParameter('channels', []) as string[],
		statuses: context.getNodeParameter('statuses', []) as string[],
	};
}

/** An empty selection means "all", so a new status from the provider is never dropped by default. */
function allows(selection: string[], value: string): boolean {
	return selection.length === 0 || selection.includes(value.toLowerCase());
}

export function matchesFilters(event: MessagingEvent, filters: EventFilters): boolean {
	const kind: EventKind = eventKindOf(event);
	if (!filters.events.includes(kind)) return false;
	if (kind === INBOUND_MESSAGE) return true;
	const update = event as DeliveryEvent;
	return allows(filters.channels, update.channel) && allows(filters.statuses, update.status);
}

export interface TriagedEvents {
	accepted: MessagingEvent[];
	duplicates: number;
	filteredOut: number;
	/** For repeats of events whose first delivery n8n has not answered yet: whether it started them. */
	unconfirmed: Array<Promise<boolean>>;
}

/**
 * Splits verified events into those that start the workflow, repeats and filtered-out ones.
 * Accepted ids are claimed in `memory`; without it, nothing counts as a repeat.
 */
export function triageEvents(
	events: MessagingEvent[],
	filters: EventFilters,
	memory: EventIdMemory | undefined,
): TriagedEvents {
	const triaged: TriagedEvents = { accepted: [], duplicates: 0, filteredOut: 0, unconfirmed: [] };
	for (const event of events) {
		if (!matchesFilters(event, filters)) triaged.filteredOut++;
		else if (memory && !memory.claim(event.event_id)) {
			triaged.duplicates++;
			const confirmation = memory.confirmationOf(event.event_id);
			if (confirmation) triaged.unconfirmed.push(confirmation);
		} else triaged.accepted.push(event);
	}
	return triaged;
}
