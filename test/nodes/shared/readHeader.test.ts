import { readHeader } from '../../../nodes/shared/readHeader';

describe('readHeader', () => {
	test('finds a header whatever its case, in plain objects and Headers-like objects', () => {
		expect(readHeader({ 'Retry-After': '3' }, 'retry-after')).toBe('3');
		expect(readHeader({ 'retry-after': ['7'] }, 'Retry-After')).toBe('7');
		expect(
			readHeader(new Headers({ 'Retry-After': 'Wed, 21 Oct 2026 07:28:00 GMT' }), 'retry-after'),
		).toBe('Wed, 21 Oct 2026 07:28:00 GMT');
	});

	test('reads Node.js request headers as a trigger receives them: lower-case names, repeats as arrays', () => {
		const headers = {
			'x-messaging-signature': ['v1=abc', 'v1=def'],
			'x-messaging-timestamp': '1700000000',
		};
		expect(readHeader(headers, 'x-messaging-signature')).toBe('v1=abc');
		expect(readHeader(headers, 'X-Messaging-Timestamp')).toBe('1700000000');
	});

	test('a missing, empty or blank header is no header, and the value is otherwise kept as sent', () => {
		expect(readHeader(undefined, 'retry-after')).toBeUndefined();
		expect(readHeader('retry-after: 3', 'retry-after')).toBeUndefined();
		expect(readHeader({}, 'retry-after')).toBeUndefined();
		expect(readHeader({ 'retry-after': undefined }, 'retry-after')).toBeUndefined();
		expect(readHeader({ 'retry-after': '  ' }, 'retry-after')).toBeUndefined();
		expect(readHeader({ 'retry-after': [] }, 'retry-after')).toBeUndefined();
		expect(readHeader(new Headers(), 'retry-after')).toBeUndefined();
		expect(readHeader({ 'retry-after': ' 3 ' }, 'retry-after')).toBe(' 3 ');
		expect(readHeader({ 'content-length': 12 }, 'content-length')).toBe('12');
	});
});
