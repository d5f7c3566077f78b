import type { DeliveryEvent } from '../../../nodes/MessagingTrigger/events';
import { matchesFilters } from '../../../nodes/MessagingTrigger/filters';

function event(channel: string, status: string): DeliveryEvent {
	return { event_id: 'evt_1', channel, status };
}

describe('matchesFilters', () => {
	it('lets everything through when no channel and no status is selected', () => {
		expect(matchesFilters(event('sms', 'delivered'), { channels: [], statuses: [] })).toBe(true);
		expect(matchesFilters(event('rcs', 'bounced'), { channels: [], statuses: [] })).toBe(true);
	});

	it.each([
		[['sms'], [], event('sms', 'sent'), true],
		[['sms'], [], event('whatsapp', 'sent'), false],
		[[], ['delivered', 'failed'], event('whatsapp', 'failed'), true],
		[[], ['delivered', 'failed'], event('whatsapp', 'read'), false],
		[['whatsapp'], ['read'], event('whatsapp', 'read'), true],
		[['whatsapp'], ['read'], event('sms', 'read'), false],
		[['whatsapp'], ['read'], event('whatsapp', 'delivered'), false],
	])('channels %j and statuses %j on %j: %p', (channels, statuses, candidate, expected) => {
		expect(matchesFilters(candidate, { channels, statuses })).toBe(expected);
	});

	it('compares channel and status case-insensitively', () => {
		expect(matchesFilters(event('SMS', 'Delivered'), { channels: ['sms'], statuses: ['delivered'] })).toBe(true);
	});
});
