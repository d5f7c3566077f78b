import { newEventId } from '../ids';
import type { DeliveryEvent, MessageRecord } from '../types';

/** The event for a message's latest status change. */
export function statusEvent(message: MessageRecord): DeliveryEvent {
	const change = message.history[message.history.length - 1];
	return {
		event_id: newEventId(change.at),
		type: 'message.status',
		message_id: message.id,
		channel: message.channel,
		status: change.status,
		timestamp: new Date(change.at).toISOString(),
		recipient: message.to,
		error: change.error,
	};
}
