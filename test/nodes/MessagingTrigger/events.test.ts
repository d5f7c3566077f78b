import { parseDeliveryEvents } from '../../../nodes/MessagingTrigger/events';

const event = {
	event_id: 'evt_1',
	type: 'message.status',
	message_id: 'msg_1',
	channel: 'sms',
	status: 'failed',
	timestamp: '2026-11-22T13:00:00.000Z',
	recipient: '+919812345678',
	error: { code: 'recipient_unreachable', message: 'The handset is unreachable.' },
};

function parse(body: unknown) {
	return parseDeliveryEvents(Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)));
}

describe('parseDeliveryEvents', () => {
	it('reads a single event, keeping every field', () => {
		expect(parse(event)).toEqual({ events: [event] });
	});

	it('reads an array of events in order', () => {
		const second = { ...event, event_id: 'evt_2', status: 'delivered', error: null };
		expect(parse([event, second])).toEqual({ events: [event, second] });
	});

	it.each(['', 'not json', '{"event_id":', "{'event_id':'evt_1'}"])(
		'refuses %p as invalid JSON',
		(body) => {
			expect(parse(body)).toEqual({ invalid: expect.objectContaining({ code: 'invalid_json' }) });
		},
	);

	it('refuses an empty array', () => {
		expect(parse([])).toEqual({
			invalid: expect.objectContaining({
				code: 'invalid_event',
				message: expect.stringContaining('empty'),
			}),
		});
	});

	it.each([['"delivered"'], ['42'], ['null'], ['[[]]']])(
		'refuses %s, which is no event object',
		(body) => {
			expect(parse(body)).toEqual({
				invalid: expect.objectContaining({
					code: 'invalid_event',
					message: expect.stringContaining('not a JSON object'),
				}),
			});
		},
	);

	it.each(['event_id', 'channel', 'status'])('names the missing %s field', (field) => {
		const incomplete: Record<string, unknown> = { ...event };
		delete incomplete[field];
		expect(parse(incomplete)).toEqual({
			invalid: { code: 'invalid_event', field, message: expect.stringContaining(`"${field}"`) },
		});
	});

	it('names which event of a batch is wrong', () => {
		expect(parse([event, { ...event, status: 7 }])).toEqual({
			invalid: expect.objectContaining({
				field: 'status',
				message: expect.stringMatching(/^Event 1 of the batch/),
			}),
		});
	});

	it('refuses a blank event id, which could not be deduplicated', () => {
		expect(parse({ ...event, event_id: '  ' })).toEqual({
			invalid: expect.objectContaining({ field: 'event_id' }),
		});
	});

	const inbound = {
		event_id: 'evt_in_1',
		type: 'message.inbound',
		message_id: 'msg_in_1',
		channel: 'whatsapp',
		from: '+919812345678',
		to: '+918000012345',
		timestamp: '2026-11-23T10:00:00.000Z',
		message_type: 'text',
		text: 'Hi',
	};

	it('reads an inbound message, which has no status, beside a status update', () => {
		expect(parse([event, inbound])).toEqual({ events: [event, inbound] });
	});

	it.each(['event_id', 'channel', 'from', 'timestamp'])(
		'names the missing %s field of an inbound message',
		(field) => {
			const incomplete: Record<string, unknown> = { ...inbound };
			delete incomplete[field];
			expect(parse(incomplete)).toEqual({
				invalid: {
					code: 'invalid_event',
					field,
					message: expect.stringContaining(
						`every message.inbound event needs a non-empty string ${field}`,
					),
				},
			});
		},
	);

	it('refuses an inbound message whose timestamp is no time, since its session window is counted from it', () => {
		expect(parse({ ...inbound, timestamp: 'yesterday' })).toEqual({
			invalid: {
				code: 'invalid_event',
				field: 'timestamp',
				message: expect.stringContaining('not an ISO 8601 time'),
			},
		});
	});
});
