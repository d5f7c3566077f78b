import type { IDataObject } from 'n8n-workflow';

export interface DeliveryEvent extends IDataObject {
	event_id: string;
	channel: string;
	status: string;
}

export interface InvalidBody {
	code: 'invalid_json' | 'invalid_event';
	message: string;
	field?: string;
}

export type ParsedEvents = { events: DeliveryEvent[] } | { invalid: InvalidBody };

const REQUIRED_EVENT_FIELDS = ['event_id', 'channel', 'status'] as const;

function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeEvent(index: number, isBatch: boolean): string {
	return isBatch ? `Event ${index} of the batch` : 'The event';
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
	if (candidates.length === 0) {
		return {
			invalid: { code: 'invalid_event', message: 'The body is an empty array: it holds no events.' },
		};
	}

	const events: DeliveryEvent[] = [];
	for (const [index, candidate] of candidates.entries()) {
		if (!isPlainObject(candidate)) {
			return {
				invalid: {
					code: 'invalid_event',
					message: `${describeEvent(index, isBatch)} is not a JSON object. Send an event object or an array of them.`,
				},
			};
		}
		for (const field of REQUIRED_EVENT_FIELDS) {
			const value = candidate[field];
			if (typeof value !== 'string' || value.trim() === '') {
				return {
					invalid: {
						code: 'invalid_event',
						field,
						message: `${describeEvent(index, isBatch)} has no "${field}": every event needs a non-empty string ${field}.`,
					},
				};
			}
		}
		events.push(candidate as DeliveryEvent);
	}
	return { events };
}
