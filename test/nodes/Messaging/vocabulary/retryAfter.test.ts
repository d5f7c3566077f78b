import { parseRetryAfter } from '../../../../nodes/Messaging/vocabulary/retryAfter';

describe('parseRetryAfter', () => {
	const now = Date.parse('2026-11-22T12:00:00Z');
	it.each([
		['3', 3000],
		['0', 0],
		[' 2 ', 2000],
		['1.5', 1500],
		['Sun, 22 Nov 2026 12:00:07 GMT', 7000],
		['Sun, 22 Nov 2026 11:59:00 GMT', 0],
		['soon', undefined],
		['', undefined],
		[undefined, undefined],
	])('reads %p as %p ms', (value, expected) => {
		expect(parseRetryAfter(value, now)).toBe(expected);
	});
});
