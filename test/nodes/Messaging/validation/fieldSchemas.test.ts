import { parseVariableValue } from '../../../../nodes/Messaging/validation/fieldSchemas';

describe('parseVariableValue', () => {
	test.each([
		['empty text', ''],
		['text of 1000 characters', 'x'.repeat(1000)],
		['zero', 0],
		['a negative fraction', -1.5],
	])('accepts %s as it is', (_label, value) => {
		expect(parseVariableValue(value)).toEqual({ success: true, data: value });
	});

	test.each([
		[
			'text of 1001 characters',
			'x'.repeat(1001),
			'is 1001 characters long, more than the 1000 allowed',
		],
		['NaN', Number.NaN, 'is a number, but variable values must be text or numbers'],
		['Infinity', Infinity, 'is a number, but variable values must be text or numbers'],
		['null', null, 'is null, but variable values must be text or numbers'],
		['nothing', undefined, 'is empty, but variable values must be text or numbers'],
		['an object', { a: 1 }, 'is an object, but variable values must be text or numbers'],
		['a list', ['a'], 'is a list, but variable values must be text or numbers'],
		['a boolean', true, 'is a boolean, but variable values must be text or numbers'],
	])('refuses %s with its fix', (_label, value, message) => {
		const parsed = parseVariableValue(value);
		expect(parsed.success).toBe(false);
		if (parsed.success) return;
		expect(parsed.error.issues).toEqual([
			expect.objectContaining({ message, params: { fix: expect.any(String) } }),
		]);
	});
});
