import { EventIdMemory } from '../../../nodes/MessagingTrigger/deduplication';
import {
	INBOUND_MESSAGE,
	STATUS_UPDATE,
	type DeliveryEvent,
	type InboundMessageEvent,
} from '../../../nodes/MessagingTrigger/events';
import { matchesFilters, triageEvents } from '../../../nodes/MessagingTrigger/triage';

function event(event_id: string, status = 'delivered', channel = 'sms'): DeliveryEvent {
	return { event_id, channel, status };
}

const BOTH_KINDS = [INBOUND_MESSAGE, STATUS_UPDATE];
const ALL = { events: BOTH_KINDS, channels: [], statuses: [] };

describe('triageEvents', () => {
	it('accepts new matching events and claims their ids', () => {
		const memory = new EventIdMemory();
		const events = [event('evt_1'), event('evt_2')];

		expect(triageEvents(events, ALL, memory)).toEqual({
			accepted: events,
			duplicates: 0,
			filteredOut: 0,
			unconfirmed: [],
		});
		expect([memory.claim('evt_1'), memory.claim('evt_2')]).toEqual([false, false]);
	});

	it('counts an id seen before as a duplicate, also within one batch', () => {
		const memory = new EventIdMemory();
		memory.claim('evt_1');

		const triaged = triageEvents([event('evt_1'), event('evt_2'), event('evt_2')], ALL, memory);

		expect(triaged).toEqual({
			accepted: [event('evt_2')],
			duplicates: 2,
			filteredOut: 0,
			unconfirmed: [],
		});
	});

	it('counts filtered-out events without claiming them', () => {
		const memory = new EventIdMemory();

		const triaged = triageEvents(
			[event('evt_1', 'sent'), event('evt_2', 'failed')],
			{ events: BOTH_KINDS, channels: [], statuses: ['failed'] },
			memory,
		);

		expect(triaged).toEqual({
			accepted: [event('evt_2', 'failed')],
			duplicates: 0,
			filteredOut: 1,
			unconfirmed: [],
		});
		expect(memory.claim('evt_1')).toBe(true);
	});

	it('counts an unselected kind as filtered out and remembers inbound ids like any other', () => {
		const memory = new EventIdMemory();
		const inbound: InboundMessageEvent = {
			event_id: 'evt_in',
			type: INBOUND_MESSAGE,
			channel: 'whatsapp',
			from: '+91',
			timestamp: 't',
		};
		const onlyInbound = { events: [INBOUND_MESSAGE], channels: [], statuses: [] };

		expect(triageEvents([event('evt_1'), inbound], onlyInbound, memory)).toEqual({
			accepted: [inbound],
			duplicates: 0,
			filteredOut: 1,
			unconfirmed: [],
		});
		expect(triageEvents([inbound], onlyInbound, memory)).toEqual({
			accepted: [],
			duplicates: 1,
			filteredOut: 0,
			unconfirmed: [],
		});
	});

	it('hands a repeat of an event not yet confirmed the outcome it must wait for, and none once confirmed', async () => {
		const memory = new EventIdMemory();
		triageEvents([event('evt_1')], ALL, memory);
		let confirm: (started: boolean) => void = () => undefined;
		const outcome = new Promise<boolean>((resolve) => (confirm = resolve));
		memory.awaitConfirmation(['evt_1'], outcome);

		const waiting = triageEvents([event('evt_1')], ALL, memory);
		confirm(true);
		await outcome;
		const later = triageEvents([event('evt_1')], ALL, memory);

		expect(waiting.unconfirmed).toEqual([outcome]);
		expect(later).toEqual({ accepted: [], duplicates: 1, filteredOut: 0, unconfirmed: [] });
	});

	it('releases claims n8n did not start, so the next repeat is accepted', async () => {
		const memory = new EventIdMemory();
		triageEvents([event('evt_1')], ALL, memory);
		const outcome = Promise.resolve(false);
		memory.awaitConfirmation(['evt_1'], outcome);
		await outcome;
		await Promise.resolve();

		expect(triageEvents([event('evt_1')], ALL, memory).accepted).toEqual([event('evt_1')]);
	});

	it('lets repeats through when there is no memory of recent ids', () => {
		const triaged = triageEvents([event('evt_1'), event('evt_1')], ALL, undefined);

		expect(triaged.accepted).toHaveLength(2);
		expect(triaged.duplicates).toBe(0);
	});
});

function eventOn(channel: string, status: string): DeliveryEvent {
	return { event_id: 'evt_1', channel, status };
}

describe('matchesFilters', () => {
	it('lets everything through when no channel and no status is selected', () => {
		expect(matchesFilters(eventOn('sms', 'delivered'), ALL)).toBe(true);
		expect(matchesFilters(eventOn('rcs', 'bounced'), ALL)).toBe(true);
	});

	it.each([
		[['sms'], [], eventOn('sms', 'sent'), true],
		[['sms'], [], eventOn('whatsapp', 'sent'), false],
		[[], ['delivered', 'failed'], eventOn('whatsapp', 'failed'), true],
		[[], ['delivered', 'failed'], eventOn('whatsapp', 'read'), false],
		[['whatsapp'], ['read'], eventOn('whatsapp', 'read'), true],
		[['whatsapp'], ['read'], eventOn('sms', 'read'), false],
		[['whatsapp'], ['read'], eventOn('whatsapp', 'delivered'), false],
	])('channels %j and statuses %j on %j: %p', (channels, statuses, candidate, expected) => {
		expect(matchesFilters(candidate, { events: [STATUS_UPDATE], channels, statuses })).toBe(
			expected,
		);
	});

	it('compares channel and status case-insensitively', () => {
		expect(
			matchesFilters(eventOn('SMS', 'Delivered'), {
				events: [STATUS_UPDATE],
				channels: ['sms'],
				statuses: ['delivered'],
			}),
		).toBe(true);
	});

	const inbound: InboundMessageEvent = {
		event_id: 'evt_in',
		type: INBOUND_MESSAGE,
		channel: 'whatsapp',
		from: '+919812345678',
		timestamp: '2026-11-23T10:00:00.000Z',
	};

	it.each([
		[[INBOUND_MESSAGE], inbound, true],
		[[STATUS_UPDATE], inbound, false],
		[[INBOUND_MESSAGE], eventOn('sms', 'delivered'), false],
		[[], inbound, false],
		[[], eventOn('sms', 'delivered'), false],
	])('with Events %j lets %j through: %p', (events, candidate, expected) => {
		expect(matchesFilters(candidate, { events, channels: [], statuses: [] })).toBe(expected);
	});

	it('does not hold the status filters against an inbound message, which has no status', () => {
		expect(
			matchesFilters(inbound, { events: BOTH_KINDS, channels: ['sms'], statuses: ['failed'] }),
		).toBe(true);
	});

	it('takes an event without a type for a status update, as every event was one before inbound messages', () => {
		expect(
			matchesFilters(eventOn('sms', 'sent'), {
				events: [INBOUND_MESSAGE],
				channels: [],
				statuses: [],
			}),
		).toBe(false);
		expect(
			matchesFilters(
				{ ...eventOn('sms', 'sent'), type: STATUS_UPDATE },
				{ events: [STATUS_UPDATE], channels: [], statuses: [] },
			),
		).toBe(true);
	});
});
