import { normalisePhoneNumber } from '../../../../nodes/Messaging/validation/phone';

describe('normalisePhoneNumber', () => {
	test.each([
		['+919812345678', '', '+919812345678'],
		['+91 98123 45678', '', '+919812345678'],
		['+91-981-234-5678', '', '+919812345678'],
		['+91.98123.45678', '', '+919812345678'],
		['+1 (415) 555-2671', '', '+14155552671'],
		['0091 98123 45678', '', '+919812345678'],
		['00 44 20 7946 0958', '', '+442079460958'],
		['9812345678', '91', '+919812345678'],
		['09812345678', '91', '+919812345678'],
		['(0) 98123-45678', '91', '+919812345678'],
		['+919812345678', '44', '+919812345678'],
		['0044 20 7946 0958', '91', '+442079460958'],
	])('%s with default country "%s" becomes %s', (input, country, expected) => {
		expect(normalisePhoneNumber(input, country)).toEqual({ ok: true, phone: expected });
	});

	test.each([
		['', '', 'is empty'],
		['   ', '', 'is empty'],
		['9812345678', '', '"9812345678" has no country code'],
		['+91 98123 4567x', '', 'contains characters that are not part of a phone number'],
		['+91+9812345678', '', 'contains characters that are not part of a phone number'],
		['+0919812345678', '', 'is not a valid international number'],
		['+12345', '', 'is not a valid international number'],
		['+1234567890123456', '', 'is not a valid international number'],
		['00', '', 'is not a valid international number'],
		['0', '91', 'is not a valid international number'],
	])('%j with default country "%s" is rejected: %s', (input, country, problem) => {
		const result = normalisePhoneNumber(input, country);
		expect(result.ok).toBe(false);
		if (!result.ok) {
			expect(result.problem).toContain(problem);
			expect(result.fix).toMatch(/e\.g\. \+919812345678|Default Country Code/);
		}
	});

	test('a national number without a default country code tells the user how to fix it', () => {
		const result = normalisePhoneNumber('98123 45678');
		expect(result).toEqual({
			ok: false,
			problem: '"98123 45678" has no country code',
			fix: expect.stringContaining('Default Country Code'),
		});
	});
});
