import { parseSmsSend, plainSmsSend } from '../../../../nodes/Messaging/validation/smsSendPlain';
import { smsSendSchema } from '../../../../nodes/Messaging/validation/smsSendSchema';

import { validSms } from './smsInputs';

/**
 * The plain checks stand in for smsSendSchema on the items they accept, so for every input they either step aside
 * (undefined: the schema decides and words the refusal) or give exactly the schema's output. Every input marked
 * plain must be accepted, so a stub that always steps aside fails.
 */

type Input = Record<string, unknown>;

const rows = (...variable: unknown[]): Input => ({ variables: { variable } });
const row = (name: unknown, value: unknown = 'x') => ({ name, value });
const long = (length: number, char = 'a') => char.repeat(length);

/** Plainly valid: the schema accepts them and so must the plain checks. */
const plainCases: Array<[string, Input]> = [
	['the usual item', {}],
	['no variables at all', { variables: undefined }],
	['variables null', { variables: null }],
	['variables without rows', { variables: {} }],
	['an empty row list', rows()],
	['no input mode (defaults to fields)', { variablesInputMode: undefined }],
	['JSON text beside fields mode, unread', { variablesJson: 'not json' }],
	['keys the schema does not know', { extra: { deep: 1 }, resource: 'sms' }],
	['names trimmed', rows(row('  customer_name '), row('\torder_id\n', 5))],
	['names with digits, dots and dashes', rows(row('a.b-c_1'), row('9'))],
	['a 64-character name', rows(row(long(64, 'n')))],
	['"__proto__" as a name', rows(row('__proto__', 'Asha'), row('other'))],
	['"constructor" and "toString" as names', rows(row('constructor'), row('toString', 2))],
	['integer-like names, in key order', rows(row('b'), row('2'), row('1'), row('a'))],
	['an empty text value', rows(row('empty', ''))],
	['a 1000-character value, untrimmed', rows(row('long', ` ${long(998)} `))],
	['number values', rows(row('zero', 0), row('neg', -12.5), row('big', 1e300), row('negZero', -0))],
	['IDs trimmed', { entityId: ' 1201159876543210123 ', templateId: '\t1207161111111111111\n' }],
	['64-character IDs', { entityId: long(64, '1'), templateId: ` ${long(64, '2')} ` }],
	['separators in To', { to: '(+91) 98123-456.78' }],
	['00 prefix in To', { to: '00919812345678' }],
	['a national To with a country code', { to: '9812345678', defaultCountryCode: '91' }],
	['a trunk 0 with a country code', { to: '098123 45678', defaultCountryCode: '+91' }],
	['a country code as a number', { to: '2025550123', defaultCountryCode: 1 }],
	['a padded country code', { to: '2025550123', defaultCountryCode: ' +1 ' }],
	['an international To ignores the country code', { defaultCountryCode: '44' }],
	['a country code null', { defaultCountryCode: null }],
	['a country code absent', { defaultCountryCode: undefined }],
	['a 40-character To', { to: `+919812345678${' '.repeat(27)}` }],
	['callback URL blank', { callbackUrl: '   ' }],
	['callback URL null', { callbackUrl: null }],
	['callback URL absent', { callbackUrl: undefined }],
	['an https callback URL', { callbackUrl: 'https://n8n.example.com/webhook/messaging-events' }],
	['an http callback URL, trimmed', { callbackUrl: '  http://localhost:5678/webhook/x?a=1 ' }],
	['an upper-case scheme', { callbackUrl: 'HTTPS://N8N.EXAMPLE.COM/Webhook' }],
	['an IPv6 callback URL', { callbackUrl: 'http://[::1]:8080/hook' }],
	['a 2048-character callback URL', { callbackUrl: `https://e.io/${long(2035)}` }],
];

/** Everything else: refused values of every kind, and valid inputs outside the common case. */
const otherCases: Array<[string, Input]> = [
	['JSON mode, valid', { variablesInputMode: 'json', variablesJson: '{"otp": "4821"}' }],
	['JSON mode, an object', { variablesInputMode: 'json', variablesJson: { otp: 4821 } }],
	['JSON mode, bad JSON', { variablesInputMode: 'json', variablesJson: '{' }],
	['an unknown mode', { variablesInputMode: 'rows' }],
	['mode in capitals', { variablesInputMode: 'FIELDS' }],
	['mode null', { variablesInputMode: null }],
	['entity ID as a number', { entityId: Number('1201159876543210123') }],
	['template ID as a number', { templateId: Number('1207161111111111111') }],
	['entity ID empty', { entityId: '' }],
	['entity ID blank', { entityId: '   ' }],
	['entity ID null', { entityId: null }],
	['entity ID absent', { entityId: undefined }],
	['entity ID 65 characters', { entityId: long(65, '1') }],
	['template ID 65 characters once trimmed', { templateId: ` ${long(65, '1')}` }],
	['entity ID an object', { entityId: { id: '1' } }],
	['entity ID a list', { entityId: ['1201159876543210123'] }],
	['entity ID a boolean', { entityId: true }],
	['entity ID a String object', { entityId: new String('1201159876543210123') }],
	['To as a number', { to: 919812345678 }],
	['To without + or country code', { to: '9812345678' }],
	['To empty', { to: '' }],
	['To only separators', { to: ' - ' }],
	['To null', { to: null }],
	['To absent', { to: undefined }],
	['To 41 characters', { to: `+919812345678${' '.repeat(28)}` }],
	['To with letters', { to: '+91 98123 abc' }],
	['To too short', { to: '+9112' }],
	['To too long', { to: '+1234567890123456' }],
	['To with country code 0', { to: '+0123456789' }],
	['To as a list', { to: ['+919812345678'] }],
	['To as an object', { to: { phone: '+919812345678' } }],
	['country code 0', { to: '9812345678', defaultCountryCode: '0' }],
	['country code 5 digits', { defaultCountryCode: '12345' }],
	['country code leading 0', { defaultCountryCode: '091' }],
	['country code letters', { defaultCountryCode: 'IN' }],
	['country code blank', { defaultCountryCode: ' ' }],
	['country code only +', { defaultCountryCode: '+' }],
	['country code ++91', { defaultCountryCode: '++91' }],
	['country code a fraction', { defaultCountryCode: 91.5 }],
	['country code negative', { defaultCountryCode: -91 }],
	['country code NaN', { defaultCountryCode: Number.NaN }],
	['country code Infinity', { defaultCountryCode: Infinity }],
	['country code a list', { to: '9812345678', defaultCountryCode: [91] }],
	['country code an object', { defaultCountryCode: {} }],
	['country code a boolean', { defaultCountryCode: true }],
	['variables as text', { variables: 'customer_name=Asha' }],
	['variables as a number', { variables: 5 }],
	['variables as a list', { variables: [{ name: 'a', value: 'b' }] }],
	['rows as text', { variables: { variable: 'x' } }],
	['rows as an object', { variables: { variable: { name: 'a', value: 'b' } } }],
	['a null row', rows(null)],
	['an undefined row', rows(undefined)],
	['a text row', rows('customer_name')],
	['a sparse row list', { variables: { variable: [, row('a')] } }], // eslint-disable-line no-sparse-arrays
	['a name as a number', rows(row(5))],
	['a name null', rows(row(null))],
	['a name absent', rows({ value: 'x' })],
	['a name empty', rows(row(''))],
	['a name blank', rows(row('   '))],
	['a name with a space', rows(row('customer name'))],
	['a name with a letter outside ASCII', rows(row('näme'))],
	['a name with braces', rows(row('{#var#}'))],
	['a name of 65 characters', rows(row(long(65, 'n')))],
	['a name twice', rows(row('a', 1), row('a', 2))],
	['a name twice once trimmed', rows(row('a'), row(' a '))],
	['"__proto__" twice', rows(row('__proto__'), row('__proto__'))],
	['a value NaN', rows(row('v', Number.NaN))],
	['a value Infinity', rows(row('v', Infinity))],
	['a value -Infinity', rows(row('v', -Infinity))],
	['a value an object', rows(row('v', { a: 1 }))],
	['a value a list', rows(row('v', ['a']))],
	['a value null', rows(row('v', null))],
	['a value absent', rows({ name: 'v' })],
	['a value a boolean', rows(row('v', true))],
	['a value a bigint', rows(row('v', BigInt(5)))],
	['a value of 1001 characters', rows(row('v', long(1001)))],
	['a bad name and a bad value', rows(row('bad name', Number.NaN))],
	['callback URL not a URL', { callbackUrl: 'nope' }],
	['callback URL relative', { callbackUrl: '/webhook/x' }],
	['callback URL ftp', { callbackUrl: 'ftp://files.example.com/x' }],
	['callback URL javascript', { callbackUrl: 'javascript:alert(1)' }],
	['callback URL mailto', { callbackUrl: 'mailto:ops@example.com' }],
	['callback URL scheme only', { callbackUrl: 'https://' }],
	['callback URL 2049 characters', { callbackUrl: `https://e.io/${long(2036)}` }],
	['callback URL a number', { callbackUrl: 5 }],
	['callback URL an object', { callbackUrl: { url: 'https://e.io' } }],
	['callback URL a boolean', { callbackUrl: false }],
	['several fields wrong', { to: 5, entityId: '', callbackUrl: 'nope', defaultCountryCode: 'x' }],
];

const recipients: unknown[] = [
	'+919812345678',
	'9812345678',
	'09812345678',
	'0091 98123 45678',
	'+1 (202) 555-0123',
	'2025550123',
	'12345',
	'+12',
	'',
	919812345678,
	null,
];
const countryCodes: unknown[] = [
	'',
	'91',
	'+1',
	' 44 ',
	1,
	9999,
	'10000',
	'0',
	'x',
	null,
	undefined,
];
/** To and Default Country Code work together: every pairing, those the schema accepts marked plain. */
const recipientCases: Array<[string, Input]> = recipients.flatMap((to) =>
	countryCodes.map((code): [string, Input] => [
		`To ${JSON.stringify(to)} with country code ${JSON.stringify(code)}`,
		{ to, defaultCountryCode: code },
	]),
);

/** The plain answer, held to the schema's: undefined, or the same output with the same content key order. */
function checkedAgainstSchema(input: Input): ReturnType<typeof plainSmsSend> {
	const plain = plainSmsSend(input);
	if (plain === undefined) return undefined;
	const parsed = smsSendSchema.safeParse(input);
	expect(parsed.success).toBe(true);
	if (!parsed.success) return plain;
	expect(plain).toEqual(parsed.data);
	expect(Object.keys(plain)).toEqual(Object.keys(parsed.data));
	expect(Object.getPrototypeOf(plain.content)).toBe(Object.getPrototypeOf(parsed.data.content));
	expect(Object.getPrototypeOf(plain.content)).toBeNull();
	expect(JSON.stringify(plain.content)).toBe(JSON.stringify(parsed.data.content));
	return plain;
}

describe('the plain SMS checks against smsSendSchema', () => {
	test.each(plainCases)('accepts %s with the schema output', (_title, patch) => {
		expect(checkedAgainstSchema({ ...validSms, ...patch })).toBeDefined();
	});

	test.each(otherCases)('%s: steps aside or agrees', (_title, patch) => {
		checkedAgainstSchema({ ...validSms, ...patch });
	});

	test('steps aside for every value the schema refuses', () => {
		const refused = otherCases.filter(
			([, patch]) => !smsSendSchema.safeParse({ ...validSms, ...patch }).success,
		);
		expect(refused.length).toBeGreaterThan(70);
		for (const [title, patch] of refused)
			expect([title, plainSmsSend({ ...validSms, ...patch })]).toEqual([title, undefined]);
	});

	test.each(recipientCases)('%s', (_title, patch) => {
		const input = { ...validSms, ...patch };
		const plain = checkedAgainstSchema(input);
		if (smsSendSchema.safeParse(input).success) expect(plain).toBeDefined();
	});

	test('keeps "__proto__" as a field of the content, with no prototype behind it', () => {
		const plain = plainSmsSend({ ...validSms, ...rows(row('__proto__', 'Asha')) });
		expect(plain && Object.keys(plain.content)).toEqual(['__proto__']);
		expect(plain && JSON.stringify(plain.content)).toBe('{"__proto__":"Asha"}');
	});
});

describe('parseSmsSend', () => {
	test.each([...plainCases, ...otherCases])(
		'%s: answers as smsSendSchema.safeParse',
		(_t, patch) => {
			const input = { ...validSms, ...patch };
			const parsed = parseSmsSend(input);
			const expected = smsSendSchema.safeParse(input);
			expect(parsed.success).toBe(expected.success);
			if (parsed.success && expected.success) expect(parsed.data).toEqual(expected.data);
			if (!parsed.success && !expected.success)
				expect(parsed.error.issues).toEqual(expected.error.issues);
		},
	);
});
