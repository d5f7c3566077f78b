import { readAcknowledgement } from '../../../../nodes/Messaging/transport/acknowledgement';

const ack = { message_id: 'msg_1', status: 'queued', channel: 'sms' };

describe('readAcknowledgement', () => {
	test.each([
		['an object', ack],
		['JSON text', JSON.stringify(ack)],
		['a JSON buffer', Buffer.from(JSON.stringify(ack))],
	])('reads %s, extra fields kept', (_kind, body) => {
		expect(readAcknowledgement(body)).toEqual(ack);
		expect(readAcknowledgement({ ...ack, price: 0.2 })).toEqual({ ...ack, price: 0.2 });
	});

	test.each([
		['no body', undefined],
		['an empty string', ''],
		['HTML', '<html>OK</html>'],
		['a list', [ack]],
		['a missing message_id', { status: 'queued', channel: 'sms' }],
		['a blank status', { ...ack, status: ' ' }],
		['a numeric message_id', { ...ack, message_id: 12 }],
		['a missing channel', { message_id: 'msg_1', status: 'queued' }],
	])('refuses %s: success must not hide a lost message', (_kind, body) => {
		expect(readAcknowledgement(body)).toBeUndefined();
	});
});
