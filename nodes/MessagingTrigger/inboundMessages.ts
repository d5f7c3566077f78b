import type { IDataObject } from 'n8n-workflow';

import {
	eventKindOf,
	INBOUND_MESSAGE,
	type InboundMessageEvent,
	type MessagingEvent,
} from './events';

/** WhatsApp accepts session messages for 24 hours after the user's last message. */
export const SESSION_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * The inbound event as sent, plus when its session window closes, so a workflow can choose between a session
 * message (before) and a template (after) without date arithmetic.
 */
export function inboundMessageItem(event: InboundMessageEvent): IDataObject {
	const windowExpiresAt = new Date(Date.parse(event.timestamp) + SESSION_WINDOW_MS).toISOString();
	return { ...event, window_expires_at: windowExpiresAt };
}

/** What the workflow gets for an accepted event: a status update exactly as sent, an inbound message with its window. */
export function outputItemOf(event: MessagingEvent): IDataObject {
	return eventKindOf(event) === INBOUND_MESSAGE
		? inboundMessageItem(event as InboundMessageEvent)
		: event;
}
