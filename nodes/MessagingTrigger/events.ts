import type { IDataObject } from 'n8n-workflow';

/** The event kinds the API sends, as its `type` field names them; also the values of the Events selector. */
export const STATUS_UPDATE = 'message.status';
export const INBOUND_MESSAGE = 'message.inbound';
export type EventKind = typeof STATUS_UPDATE | typeof INBOUND_MESSAGE;

/** From this version on, a new trigger also receives inbound messages; older ones keep receiving status updates only. */
export const INBOUND_BY_DEFAULT_SINCE = 1.1;

/** What a node saved without an Events value receives: what its version received when it was saved. */
export function defaultEventsFor(typeVersion: number): EventKind[] {
	return typeVersion >= INBOUND_BY_DEFAULT_SINCE
		? [INBOUND_MESSAGE, STATUS_UPDATE]
		: [STATUS_UPDATE];
}

/** A message we sent changed status. */
export interface DeliveryEvent extends IDataObject {
	event_id: string;
	channel: string;
	status: string;
}

/** A WhatsApp user wrote to the business number or pressed a quick-reply button. */
export interface InboundMessageEvent extends IDataObject {
	event_id: string;
	type: typeof INBOUND_MESSAGE;
	channel: string;
	from: string;
	timestamp: string;
}

export type MessagingEvent = DeliveryEvent | InboundMessageEvent;

export interface InvalidBody {
	code: 'invalid_json' | 'invalid_event';
	message: string;
	field?: string;
}

export type ParsedEvents = { events: MessagingEvent[] } | { invalid: InvalidBody };

/** Anything but an inbound message is a status update, as every event was before inbound messages existed. */
export function eventKindOf(event: IDataObject): EventKind {
	return event.type === INBOUND_MESSAGE ? INBOUND_MESSAGE : STATUS_UPDATE;
}

const REQUIRED_FIELDS: Record<EventKind, readonly string[]> = {
	[STATUS_UPDATE]: ['event_id', 'channel', 'status'],
	[INBOUND_MESSAGE]: ['event_id', 'channel', 'from', 'timestamp'],
};

function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeEvent(index: number, isBatch: boolean): string {
	return isBatch ? `Event ${index} of the batch` : 'The event';
}

function invalidEvent(message: string, field?: string): { invalid: InvalidBody } {
	return { invalid: { code: 'invalid_event', message, ...(field ? { field } : {}) } };
}

/** Why the event cannot be run, or undefined when it holds what its kind needs. */
function problemWith(candidate: IDataObject, which: string): { invalid: InvalidBody } | undefined {
	const kind = eventKindOf(candidate);
	const every = kind === INBOUND_MESSAGE ? `every ${INBOUND_MESSAGE} event` : 'every event';
	for (const field of REQUIRED_FIELDS[kind]) {
		const value = candidate[field];
		if (typeof value !== 'string' || value.trim() === '') {
			return invalidEvent(
				`${which} has no "${field}": ${every} needs a non-empty string ${field}.`,
				field,
			);
		}
	}
	// The session window is counted from it, so it must be a time.
	if (kind === INBOUND_MESSAGE && Number.isNaN(Date.parse(candidate.timestamp as string))) {
		return invalidEvent(
			`${which} has "timestamp" "${candidate.timestamp}", which is not an ISO 8601 time.`,
			'timestamp',
		);
	}
	return undefined;
}

/** Accepts one event object or an array of them, as the sender may batch deliveries. */
export function parseDeliveryEvents(rawBody: Buffer): ParsedEvents {
	let body: unknown;
	try {
		body = JSON.parse(rawBody.toString('utf8'));
	} catch {
		return {
			invalid: {
				code: 'invalid_json',
				message: 'The body is not valid JSON. Send the event as application/json.',
			},
		};
	}

	const isBatch = Array.isArray(body);
	const candidates: unknown[] = isBatch ? (body as unknown[]) : [body];
	if (candidates.length === 0)
		return invalidEvent('The body is an empty array: it holds no events.');

	const events: MessagingEvent[] = [];
	for (const [index, candidate] of candidates.entries()) {
		const which = describeEvent(index, isBatch);
		if (!isPlainObject(candidate)) {
			return invalidEvent(
				`${which} is not a JSON object. Send an event object or an array of them.`,
			);
		}
		const problem = problemWith(candidate, which);
		if (problem) return problem;
		events.push(candidate as MessagingEvent);
	}
	return { events };
}
