import { EventIdMemory } from '../../../nodes/MessagingTrigger/deduplication';
import type { DeliveryEvent } from '../../../nodes/MessagingTrigger/events';
import { matchesFilters, triageEvents } from '../../../nodes/MessagingTrigger/triage';

function event(event_id: string, status = 'delivered', channel = 'sms'): DeliveryEvent {
	return { event_id, channel, status };
}

const ALL = { channels: [], statuses: [] };

describe('triageEvents', () => {
	it('accepts new matching events and claims their ids', () => {
		const memory = new EventIdMemory();
		const events = [event('evt_1'), event('evt_2')];

		expect(triageEvents(events, ALL, memory)).toEqual({ accepted: events, duplicates: 0, filteredOut: 0 });
		expect([memory.claim('evt_1'), memory.claim('evt_2')]).toEqual([false, false]);
	});

	it('counts an id seen before as a duplicate, also within one batch', () => {
		const memory = new EventIdMemory();
		memory.claim('evt_1');

		const triaged = triageEvents([event('evt_1'), event('evt_2'), event('evt_2')], ALL, memory);

		expect(triaged).toEqual({ accepted: [event('evt_2')], duplicates: 2, filteredOut: 0 });
	});

	it('counts filtered-out events without claiming them', () => {
		const memory = new EventIdMemory();

		const triaged = triageEvents(
			[event('evt_1', 'sent'), event('evt_2', 'failed')],
			{ channels: [], statuses: ['failed'] },
			memory,
		);

		expect(triaged).toEqual({ accepted: [event('evt_2', 'failed')], duplicates: 0, filteredOut: 1 });
		expect(memory.claim('evt_1')).toBe(true);
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
		expect(matchesFilters(eventOn('sms', 'delivered'), { channels: [], statuses: [] })).toBe(true);
		expect(matchesFilters(eventOn('rcs', 'bounced'), { channels: [], statuses: [] })).toBe(true);
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
		expect(matchesFilters(candidate, { channels, statuses })).toBe(expected);
	});

	it('compares channel and status case-insensitively', () => {
		expect(matchesFilters(eventOn('SMS', 'Delivered'), { channels: ['sms'], statuses: ['delivered'] })).toBe(true);
	});
});
