import { newEventId } from '../ids';
import type { DeliveryEvent, MessageRecord, StatusChange } from '../types';

/** The event for one status change of a message (its latest unless given). */
export function statusEvent(
	message: MessageRecord,
	change: StatusChange = message.history[message.history.length - 1],
): DeliveryEvent {
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
