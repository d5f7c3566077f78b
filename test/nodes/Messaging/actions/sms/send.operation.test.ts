import { description, prepare } from '../../../../../nodes/Messaging/actions/sms/send.operation';
import { operationHarness, type BadCase, type SendCase } from '../support/operationHarness';

/**
 * The SMS send operation's contract: the node's parameters for one item become one exact request. The
 * request is followed to the wire the way the router sends it (the operation's prepare, then the item's send
 * settings, then the transport); only n8n's own parts are faked: parameter reading and the HTTP helper.
 */

const BASE_URL = 'https://api.example.com';
const SMS_URL = 'https://api.example.com/v1/sms/send';

const baseParameters = {
	resource: 'sms',
	operation: 'send',
	to: '+919812345678',
	entityId: '1201159876543210123',
	templateId: '1207161111111111111',
	variablesInputMode: 'fields',
	variables: { variable: [{ name: 'customer_name', value: 'Asha' }] },
	options: {},
};

const { sendItem, expectSent, expectRefused } = operationHarness({
	prepare,
	baseUrl: BASE_URL,
	path: '/v1/sms/send',
	url: SMS_URL,
	jsonField: 'content',
	answer: {
		statusCode: 200,
		headers: { 'content-type': 'application/json' },
		body: { message_id: 'msg_sms_1', status: 'queued', channel: 'sms' },
	},
	acknowledgement: { message_id: 'msg_sms_1', status: 'queued', channel: 'sms' },
});

const sendCases: SendCase[] = [
	{
		title: 'a variable named "__proto__" is sent like any other name, not dropped',
		parameters: {
			...baseParameters,
			variablesInputMode: 'json',
			variablesJson: '{"__proto__": "x", "a": "1"}',
		},
		body: {
			to: '+919812345678',
			entity_id: '1201159876543210123',
			template_id: '1207161111111111111',
			content: JSON.parse('{"__proto__": "x", "a": "1"}') as Record<string, unknown>,
		},
	},
	{
		title:
			'one variable row and no options: form body, no callback_url, no Idempotency-Key, default timeout',
		parameters: baseParameters,
		body: {
			to: '+919812345678',
			entity_id: '1201159876543210123',
			template_id: '1207161111111111111',
			content: { customer_name: 'Asha' },
		},
	},
	{
		title: 'a template without variables (no rows) sends an empty content map',
		parameters: { ...baseParameters, variables: {} },
		body: {
			to: '+919812345678',
			entity_id: '1201159876543210123',
			template_id: '1207161111111111111',
			content: {},
		},
	},
	{
		title: 'no variables parameter and no input mode at all also sends an empty content map',
		parameters: {
			...baseParameters,
			variablesInputMode: undefined,
			variables: undefined,
		},
		body: {
			to: '+919812345678',
			entity_id: '1201159876543210123',
			template_id: '1207161111111111111',
			content: {},
		},
	},
	{
		title: 'row names are trimmed, values are kept as given, numbers stay numbers',
		parameters: {
			...baseParameters,
			variables: {
				variable: [
					{ name: ' customer_name ', value: ' Asha K ' },
					{ name: 'order_id', value: 1234 },
					{ name: 'eta', value: '' },
				],
			},
		},
		body: {
			to: '+919812345678',
			entity_id: '1201159876543210123',
			template_id: '1207161111111111111',
			content: { customer_name: ' Asha K ', order_id: 1234, eta: '' },
		},
	},
	{
		title: 'JSON mode: the JSON text is the content, stale rows are ignored',
		parameters: {
			...baseParameters,
			variablesInputMode: 'json',
			variablesJson: '{"otp": "004821", "valid_minutes": 10}',
		},
		body: {
			to: '+919812345678',
			entity_id: '1201159876543210123',
			template_id: '1207161111111111111',
			content: { otp: '004821', valid_minutes: 10 },
		},
	},
	{
		title: 'JSON mode: an object returned by an expression is the content',
		parameters: {
			...baseParameters,
			variablesInputMode: 'json',
			variables: undefined,
			variablesJson: { 'order.id': 'A-17', 'customer-name': 'Ravi' },
		},
		body: {
			to: '+919812345678',
			entity_id: '1201159876543210123',
			template_id: '1207161111111111111',
			content: { 'order.id': 'A-17', 'customer-name': 'Ravi' },
		},
	},
	{
		title: 'fields mode: a stale JSON variables object is ignored',
		parameters: { ...baseParameters, variablesJson: '{"otp": "1"}' },
		body: {
			to: '+919812345678',
			entity_id: '1201159876543210123',
			template_id: '1207161111111111111',
			content: { customer_name: 'Asha' },
		},
	},
	{
		title: 'To written with 00, parentheses and spaces becomes E.164',
		parameters: { ...baseParameters, to: '0091 (98123) 45678' },
		body: {
			to: '+919812345678',
			entity_id: '1201159876543210123',
			template_id: '1207161111111111111',
			content: { customer_name: 'Asha' },
		},
	},
	{
		title: 'a national number is completed with Options > Default Country Code ("+44" accepted)',
		parameters: {
			...baseParameters,
			to: '07700-900123',
			options: { defaultCountryCode: '+44' },
		},
		body: {
			to: '+447700900123',
			entity_id: '1201159876543210123',
			template_id: '1207161111111111111',
			content: { customer_name: 'Asha' },
		},
	},
	{
		title: 'DLT IDs are sent trimmed',
		parameters: {
			...baseParameters,
			entityId: ' 1201159876543210123\n',
			templateId: '\t1207162222222222222 ',
		},
		body: {
			to: '+919812345678',
			entity_id: '1201159876543210123',
			template_id: '1207162222222222222',
			content: { customer_name: 'Asha' },
		},
	},
	{
		title: 'Options > Callback URL is sent trimmed as callback_url',
		parameters: {
			...baseParameters,
			options: {
				callbackUrl: '  https://n8n.example.com/webhook/4f1c/messaging-events?tenant=a&x=1  ',
			},
		},
		body: {
			to: '+919812345678',
			entity_id: '1201159876543210123',
			template_id: '1207161111111111111',
			content: { customer_name: 'Asha' },
			callback_url: 'https://n8n.example.com/webhook/4f1c/messaging-events?tenant=a&x=1',
		},
	},
	{
		title: 'a blank Callback URL sends no callback_url',
		parameters: { ...baseParameters, options: { callbackUrl: '   ' } },
		body: {
			to: '+919812345678',
			entity_id: '1201159876543210123',
			template_id: '1207161111111111111',
			content: { customer_name: 'Asha' },
		},
	},
	{
		title: 'JSON body encoding, Idempotency Key (trimmed) and timeout',
		parameters: {
			...baseParameters,
			options: {
				bodyEncoding: 'json',
				idempotencyKey: ' order-1234-sms ',
				timeout: 5000,
				callbackUrl: 'https://n8n.example.com/webhook/events',
			},
		},
		encoding: 'json',
		idempotencyKey: 'order-1234-sms',
		timeout: 5000,
		body: {
			to: '+919812345678',
			entity_id: '1201159876543210123',
			template_id: '1207161111111111111',
			content: { customer_name: 'Asha' },
			callback_url: 'https://n8n.example.com/webhook/events',
		},
	},
	{
		title: 'an Idempotency Key that an expression made a number travels as text',
		parameters: { ...baseParameters, options: { idempotencyKey: 1234 } },
		idempotencyKey: '1234',
		body: {
			to: '+919812345678',
			entity_id: '1201159876543210123',
			template_id: '1207161111111111111',
			content: { customer_name: 'Asha' },
		},
	},
];

describe('SMS → Send: parameters → exact request', () => {
	test.each(sendCases.map((sendCase) => [sendCase.title, sendCase] as const))(
		'%s',
		async (_title, sendCase) => {
			await expectSent(sendCase);
		},
	);

	test('content is JSON-encoded text of a flat map on the wire, not a nested form field', async () => {
		const { sent } = await sendItem({
			...baseParameters,
			variables: {
				variable: [
					{ name: 'customer_name', value: 'Asha K' },
					{ name: 'order_id', value: 1234 },
				],
			},
		});

		expect(sent[0].options.body).toBe(
			'to=%2B919812345678&entity_id=1201159876543210123&template_id=1207161111111111111' +
				'&content=%7B%22customer_name%22%3A%22Asha+K%22%2C%22order_id%22%3A1234%7D',
		);
	});

	test('the operation describes exactly the fields it reads, and Callback URL only among the options', () => {
		expect(description.map((property) => property.name)).toEqual([
			'to',
			'entityId',
			'templateId',
			'variablesInputMode',
			'variables',
			'variablesJson',
			'options',
		]);
		const options = description.find((property) => property.name === 'options')?.options ?? [];
		expect(options.map((option) => ('name' in option ? option.name : undefined)).sort()).toEqual([
			'bodyEncoding',
			'callbackUrl',
			'defaultCountryCode',
			'idempotencyKey',
			'maxConcurrency',
			'maxPerSecond',
			'maxTries429',
			'sendOnceHours',
			'timeout',
		]);
		for (const property of description) {
			expect(property.displayOptions?.show).toMatchObject({
				resource: ['sms'],
				operation: ['send'],
			});
		}
	});
});

const NAME_FIX =
	'Use the variable name exactly as declared in the DLT template: letters, digits, "_", "-" or ".", at most 64 characters, e.g. customer_name.';
const VALUE_FIX =
	'Map a single text or number value, e.g. {{ $json.customer_name }}; turn objects into text first, e.g. {{ JSON.stringify($json.order) }}.';

const badCases: BadCase[] = [
	{
		title: 'To not set',
		parameters: { ...baseParameters, to: undefined },
		itemIndex: 2,
		message: "Item 2: 'To' is empty",
		description: 'Enter the recipient number, e.g. +919812345678.',
	},
	{
		title: 'a national To without Default Country Code',
		parameters: { ...baseParameters, to: '(0) 98123 45678' },
		itemIndex: 0,
		message: `Item 0: 'To' "(0) 98123 45678" has no country code`,
		description:
			'Write the number with its country code, e.g. +919812345678, or set Options > Default Country Code (e.g. 91) to complete national numbers.',
	},
	{
		title: 'Default Country Code that is not digits',
		parameters: {
			...baseParameters,
			to: '09812345678',
			options: { defaultCountryCode: 'IN' },
		},
		itemIndex: 1,
		message: `Item 1: 'Options > Default Country Code' "IN" is not a country calling code`,
		description:
			'Enter 1 to 4 digits without "+", e.g. 91 for India or 1 for the USA, or leave it empty.',
	},
	{
		title: 'DLT Template ID not set',
		parameters: { ...baseParameters, templateId: undefined },
		itemIndex: 0,
		message: "Item 0: 'DLT Template ID' is empty",
		description: 'Enter a value, e.g. 1207161111111111111.',
	},
	{
		title: 'DLT Template ID that an expression made a number',
		parameters: { ...baseParameters, templateId: 1207161 },
		itemIndex: 5,
		message: "Item 5: 'DLT Template ID' is a number (1207161), but it must be text",
		description:
			'Long numbers lose digits in JSON; pass the value as text, e.g. {{ String($json.id) }} or "1207161111111111111".',
	},
	{
		title: 'the blank row the editor adds with Add Variable',
		parameters: {
			...baseParameters,
			variables: { variable: [{ name: '', value: '' }] },
		},
		itemIndex: 0,
		message: "Item 0: 'Template Variables' row 1 (name) has a variable without a name",
		description: NAME_FIX,
	},
	{
		title: 'a variable name with a space',
		parameters: {
			...baseParameters,
			variables: {
				variable: [
					{ name: 'customer_name', value: 'Asha' },
					{ name: 'order id', value: '1234' },
				],
			},
		},
		itemIndex: 0,
		message: `Item 0: 'Template Variables' row 2 (name) has an invalid variable name "order id"`,
		description: NAME_FIX,
	},
	{
		title: 'a variable name that an expression made a number',
		parameters: {
			...baseParameters,
			variables: { variable: [{ name: 7, value: 'x' }] },
		},
		itemIndex: 0,
		message:
			"Item 0: 'Template Variables' row 1 (name) is a number, but variable names must be text",
		description: NAME_FIX,
	},
	{
		title: 'an unknown variables input mode',
		parameters: { ...baseParameters, variablesInputMode: 'rows' },
		itemIndex: 0,
		message: `Item 0: 'Template Variables Input' must be "fields" or "json"`,
		description: 'Choose Using Fields Below or Using JSON.',
	},
	{
		title: 'JSON mode: a list as a variable value',
		parameters: {
			...baseParameters,
			variablesInputMode: 'json',
			variablesJson: '{"otp": [4, 8]}',
		},
		itemIndex: 0,
		message: `Item 0: 'Template Variables (JSON)' "otp" is a list, but variable values must be text or numbers`,
		description: VALUE_FIX,
	},
	{
		title: 'JSON mode: an expression that returned null',
		parameters: {
			...baseParameters,
			variablesInputMode: 'json',
			variablesJson: null,
		},
		itemIndex: 3,
		message: "Item 3: 'Template Variables (JSON)' is null, but it must be a JSON object",
		description: 'Enter a JSON object, e.g. {"customer_name": "Asha"}.',
	},
	{
		title: 'JSON mode: a bad name and a nested value are both reported',
		parameters: {
			...baseParameters,
			variablesInputMode: 'json',
			variablesJson: '{"order id": 1, "eta": {"day": 24}}',
		},
		itemIndex: 0,
		message: `Item 0: 'Template Variables (JSON)' "order id" has an invalid variable name "order id"`,
		description: `${NAME_FIX} Also to fix in this item: 'Template Variables (JSON)' "eta" is an object, but variable values must be text or numbers.`,
	},
	{
		title: 'a Callback URL that is not http(s)',
		parameters: {
			...baseParameters,
			options: { callbackUrl: 'mailto:ops@example.com' },
		},
		itemIndex: 0,
		message: `Item 0: 'Options > Callback URL' uses "mailto:", but only http and https are allowed`,
		description:
			'Paste the Production URL of a Messaging Trigger node, e.g. https://n8n.example.com/webhook/messaging-events.',
	},
	{
		title: 'both DLT IDs blank: the first is the message, the second is listed',
		parameters: { ...baseParameters, entityId: '', templateId: '  ' },
		itemIndex: 4,
		message: "Item 4: 'DLT Entity ID' is empty",
		description:
			"Enter a value, e.g. 1201159876543210123. Also to fix in this item: 'DLT Template ID' is empty.",
	},
];

describe('SMS → Send: bad parameters → the error naming field, item and fix; nothing sent', () => {
	test.each(badCases.map((badCase) => [badCase.title, badCase] as const))(
		'%s',
		async (_title, badCase) => {
			await expectRefused(badCase);
		},
	);
});
