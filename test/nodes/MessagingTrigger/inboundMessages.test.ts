import { INBOUND_MESSAGE, type InboundMessageEvent } from '../../../nodes/MessagingTrigger/events';
import { inboundMessageItem, outputItemOf } from '../../../nodes/MessagingTrigger/inboundMessages';

const event: InboundMessageEvent = {
	event_id: 'evt_in_1',
	type: INBOUND_MESSAGE,
	message_id: 'msg_in_1',
	channel: 'whatsapp',
	from: '+919812345678',
	to: '+918000012345',
	timestamp: '2026-11-23T10:15:00.000Z',
	message_type: 'button',
	button: { payload: 'track-1234', text: 'Track my order' },
	context: { message_id: 'msg_template_1' },
};

describe('inboundMessageItem', () => {
	it('keeps the event as sent and adds when its session window closes, 24 hours after it', () => {
		expect(inboundMessageItem(event)).toEqual({
			...event,
			window_expires_at: '2026-11-24T10:15:00.000Z',
		});
	});

	it('writes the closing time in UTC whatever offset the event was stamped with', () => {
		expect(
			inboundMessageItem({ ...event, timestamp: '2026-11-23T15:45:00+05:30' }).window_expires_at,
		).toBe('2026-11-24T10:15:00.000Z');
	});
});

describe('outputItemOf', () => {
	it('adds the session window to an inbound message and passes a status update on exactly as sent', () => {
		const status = {
			event_id: 'evt_1',
			type: 'message.status',
			channel: 'sms',
			status: 'delivered',
			timestamp: '2026-11-23T10:15:00.000Z',
		};
		expect(outputItemOf(status)).toBe(status);
		expect(outputItemOf(event)).toEqual({
			...event,
			window_expires_at: '2026-11-24T10:15:00.000Z',
		});
	});
});
