import { NodeOperationError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';
import type { ZodType } from 'zod/v3';

import { buildSmsRequest } from '../../../../nodes/Messaging/actions/sms/send.operation';
import { buildWhatsappRequest } from '../../../../nodes/Messaging/actions/whatsapp/send.operation';
import { issueToNodeError } from '../../../../nodes/Messaging/validation/issueToNodeError';
import type { FieldGuide } from '../../../../nodes/Messaging/validation/issueToNodeError';
import { smsFieldGuide, smsSendSchema } from '../../../../nodes/Messaging/validation/smsSendSchema';
import {
	whatsappFieldGuide,
	whatsappSendSchema,
} from '../../../../nodes/Messaging/validation/whatsappSendSchema';
import { messagingNode } from '../../../helpers/nodeFixtures';

import { validSms } from './smsInputs';

const node: INode = messagingNode({}, { id: 'node-1' });

function errorFor(
	schema: ZodType,
	guide: FieldGuide,
	input: unknown,
	itemIndex = 3,
): NodeOperationError {
	const parsed = schema.safeParse(input);
	if (parsed.success)
		throw new Error(`expected a validation error, got ${JSON.stringify(parsed.data)}`);
	return issueToNodeError(node, parsed.error.issues, itemIndex, guide);
}

const validTemplate = {
	to: '+919812345678',
	messageType: 'template',
	templateName: 'order_update',
	componentsInputMode: 'fields',
	components: {
		header: [{ index: 1, value: 'Order 1234' }],
		body: [
			{ index: 2, value: '24 Nov' },
			{ index: 1, value: 'Asha' },
		],
		buttons: [{ index: 1, value: 'track-1234' }],
	},
	defaultCountryCode: '',
};

describe('SMS send validation and request', () => {
	test('a valid item becomes the wire fields, content JSON-encoded', () => {
		const parsed = smsSendSchema.parse({
			...validSms,
			to: '098123 45678',
			defaultCountryCode: '91',
			callbackUrl: ' https://n8n.example.com/webhook/events ',
		});
		expect(buildSmsRequest(parsed)).toEqual({
			path: '/v1/sms/send',
			fields: {
				to: '+919812345678',
				entity_id: '1201159876543210123',
				template_id: '1207161111111111111',
				content: '{"customer_name":"Asha","order_id":1234}',
				callback_url: 'https://n8n.example.com/webhook/events',
			},
		});
	});

	test('JSON variables accept a text or an object from an expression', () => {
		const fromText = smsSendSchema.parse({
			...validSms,
			variablesInputMode: 'json',
			variablesJson: '{"otp": "4821"}',
		});
		const fromObject = smsSendSchema.parse({
			...validSms,
			variablesInputMode: 'json',
			variablesJson: { otp: 4821 },
		});
		expect(buildSmsRequest(fromText).fields.content).toBe('{"otp":"4821"}');
		expect(buildSmsRequest(fromObject).fields.content).toBe('{"otp":4821}');
		expect(buildSmsRequest(fromText).fields).not.toHaveProperty('callback_url');
	});

	test.each([
		['empty To', { to: '' }, "Item 3: 'To' is empty"],
		[
			'national To without country code',
			{ to: '9812345678' },
			`Item 3: 'To' "9812345678" has no country code`,
		],
		[
			'letters in To',
			{ to: '+91 98123 abc' },
			'Item 3: \'To\' "+91 98123 abc" contains characters that are not part of a phone number',
		],
		['too short To', { to: '+9112' }, 'Item 3: \'To\' "+9112" is not a valid international number'],
		[
			'object To',
			{ to: { phone: '+919812345678' } },
			"Item 3: 'To' is an object, but it must be a phone number",
		],
		['null To', { to: null }, "Item 3: 'To' is empty"],
		[
			'numeric To from an expression, even with a country code',
			{ to: 919812345678, defaultCountryCode: '91' },
			"Item 3: 'To' is a number (919812345678), but phone numbers must be text",
		],
		[
			'bad country code',
			{ to: '9812345678', defaultCountryCode: '+0' },
			`Item 3: 'Options > Default Country Code' "+0" is not a country calling code`,
		],
		['empty entity', { entityId: '' }, "Item 3: 'DLT Entity ID' is empty"],
		['whitespace entity', { entityId: '   ' }, "Item 3: 'DLT Entity ID' is empty"],
		[
			'numeric entity',
			{ entityId: 1201159876543210000 },
			"Item 3: 'DLT Entity ID' is a number (1201159876543210000), but it must be text",
		],
		[
			'array template id',
			{ templateId: ['1207161111111111111'] },
			"Item 3: 'DLT Template ID' is a list, but it must be text",
		],
		[
			'oversized template id',
			{ templateId: '1'.repeat(65) },
			"Item 3: 'DLT Template ID' is 65 characters long, more than the 64 allowed",
		],
		[
			'nameless variable',
			{ variables: { variable: [{ name: ' ', value: 'x' }] } },
			"Item 3: 'Template Variables' row 1 (name) has a variable without a name",
		],
		[
			'duplicate variable',
			{
				variables: {
					variable: [
						{ name: 'a', value: 1 },
						{ name: 'a', value: 2 },
					],
				},
			},
			`Item 3: 'Template Variables' row 2 (name) names the variable "a" twice`,
		],
		[
			'object variable value',
			{ variables: { variable: [{ name: 'a', value: { x: 1 } }] } },
			"Item 3: 'Template Variables' row 1 (value) is an object, but variable values must be text or numbers",
		],
		[
			'null variable value',
			{ variables: { variable: [{ name: 'a', value: null }] } },
			"Item 3: 'Template Variables' row 1 (value) is null, but variable values must be text or numbers",
		],
		[
			'oversized variable value',
			{ variables: { variable: [{ name: 'a', value: 'x'.repeat(1001) }] } },
			"Item 3: 'Template Variables' row 1 (value) is 1001 characters long",
		],
		[
			'invalid JSON variables',
			{ variablesInputMode: 'json', variablesJson: '{"a": ' },
			"Item 3: 'Template Variables (JSON)' is not valid JSON",
		],
		[
			'array JSON variables',
			{ variablesInputMode: 'json', variablesJson: '[1, 2]' },
			"Item 3: 'Template Variables (JSON)' is a list, but it must be a JSON object",
		],
		[
			'nested JSON variables',
			{ variablesInputMode: 'json', variablesJson: '{"a": {"b": 1}}' },
			`Item 3: 'Template Variables (JSON)' "a" is an object, but variable values must be text or numbers`,
		],
		[
			'empty JSON variables',
			{ variablesInputMode: 'json', variablesJson: '' },
			"Item 3: 'Template Variables (JSON)' is empty",
		],
		[
			'relative callback URL',
			{ callbackUrl: '/webhook/events' },
			`Item 3: 'Options > Callback URL' "/webhook/events" is not an absolute URL`,
		],
		[
			'ftp callback URL',
			{ callbackUrl: 'ftp://example.com/x' },
			`Item 3: 'Options > Callback URL' uses "ftp:", but only http and https are allowed`,
		],
		[
			'numeric callback URL',
			{ callbackUrl: 42 },
			"Item 3: 'Options > Callback URL' is a number, but it must be a URL",
		],
	])('%s', (_case, patch, expected) => {
		const error = errorFor(smsSendSchema, smsFieldGuide, { ...validSms, ...patch });
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toContain(expected);
		expect(error.description).toBeTruthy();
		expect(error.context.itemIndex).toBe(3);
	});

	test('the description says how to fix the field', () => {
		expect(
			errorFor(smsSendSchema, smsFieldGuide, { ...validSms, to: '9812345678' }).description,
		).toContain('Default Country Code');
		expect(
			errorFor(smsSendSchema, smsFieldGuide, { ...validSms, callbackUrl: 'nope' }).description,
		).toContain('Messaging Trigger');
		expect(
			errorFor(smsSendSchema, smsFieldGuide, { ...validSms, entityId: 5 }).description,
		).toContain('String(');
	});

	test('other problems of the same item are listed in the description', () => {
		const error = errorFor(smsSendSchema, smsFieldGuide, {
			...validSms,
			entityId: '',
			templateId: '',
		});
		expect(error.message).toBe("Item 3: 'DLT Entity ID' is empty");
		expect(error.description).toContain("Also to fix in this item: 'DLT Template ID' is empty.");
	});
});

describe('WhatsApp send validation and request', () => {
	test('template rows become positional components, JSON-encoded', () => {
		expect(buildWhatsappRequest(whatsappSendSchema.parse(validTemplate))).toEqual({
			path: '/v1/whatsapp/send',
			fields: {
				to: '+919812345678',
				type: 'template',
				template_name: 'order_update',
				components:
					'{"header":{"1":"Order 1234"},"body":{"1":"Asha","2":"24 Nov"},"buttons":{"1":"track-1234"}}',
			},
		});
	});

	test('template JSON components give the same wire value; no components means no field', () => {
		const json = whatsappSendSchema.parse({
			...validTemplate,
			componentsInputMode: 'json',
			componentsJson:
				'{"header": {"1": "Order 1234"}, "body": {"1": "Asha", "2": "24 Nov"}, "buttons": {"1": "track-1234"}}',
		});
		expect(buildWhatsappRequest(json)).toEqual(
			buildWhatsappRequest(whatsappSendSchema.parse(validTemplate)),
		);
		const bare = whatsappSendSchema.parse({ ...validTemplate, components: {} });
		expect(buildWhatsappRequest(bare).fields).toEqual({
			to: '+919812345678',
			type: 'template',
			template_name: 'order_update',
		});
	});

	test('a session message carries only its text', () => {
		const parsed = whatsappSendSchema.parse({
			to: '0091 98123 45678',
			messageType: 'session',
			text: ' Thanks! ',
			defaultCountryCode: '',
		});
		expect(buildWhatsappRequest(parsed)).toEqual({
			path: '/v1/whatsapp/send',
			fields: { to: '+919812345678', type: 'session', text: ' Thanks! ' },
		});
	});

	const session = {
		to: '+919812345678',
		messageType: 'session',
		text: 'Hello',
		defaultCountryCode: '',
	};

	test.each([
		[
			'empty template name',
			validTemplate,
			{ templateName: ' ' },
			"Item 3: 'Template Name' is empty",
		],
		[
			'numeric template name',
			validTemplate,
			{ templateName: 12 },
			"Item 3: 'Template Name' is a number (12), but it must be text",
		],
		[
			'unknown message type',
			validTemplate,
			{ messageType: 'sticker' },
			`Item 3: 'Message Type' must be "template" or "session"`,
		],
		[
			'component position gap',
			validTemplate,
			{
				components: {
					body: [
						{ index: 1, value: 'a' },
						{ index: 3, value: 'b' },
					],
				},
			},
			`Item 3: 'Components' "body" has positions 1, 3, but they must run 1, 2, 3… without gaps or repeats`,
		],
		[
			'repeated component position',
			validTemplate,
			{
				components: {
					body: [
						{ index: 1, value: 'a' },
						{ index: 1, value: 'b' },
					],
				},
			},
			`Item 3: 'Components' body row 2 has the body position 1 twice`,
		],
		[
			'non-numeric row position',
			validTemplate,
			{ components: { body: [{ index: 'first', value: 'a' }] } },
			`Item 3: 'Components' body row 1 has the position "first" in body`,
		],
		[
			'object component value',
			validTemplate,
			{ components: { header: [{ index: 1, value: ['x'] }] } },
			"Item 3: 'Components' header row 1 is a list, but variable values must be text or numbers",
		],
		[
			'invalid components JSON',
			validTemplate,
			{ componentsInputMode: 'json', componentsJson: '{header:' },
			"Item 3: 'Components (JSON)' is not valid JSON",
		],
		[
			'unknown components section',
			validTemplate,
			{ componentsInputMode: 'json', componentsJson: '{"footer": {"1": "x"}}' },
			`Item 3: 'Components (JSON)' has an unknown key "footer"`,
		],
		[
			'non-numeric JSON position',
			validTemplate,
			{ componentsInputMode: 'json', componentsJson: '{"body": {"name": "Asha"}}' },
			`Item 3: 'Components (JSON)' body position "name" has the position "name" in body`,
		],
		[
			'JSON section not an object',
			validTemplate,
			{ componentsInputMode: 'json', componentsJson: '{"body": ["Asha"]}' },
			`has a list under "body"`,
		],
		[
			'text on a template message',
			validTemplate,
			{ text: 'Hi' },
			"Item 3: 'Text' is set on a template message",
		],
		['empty session text', session, { text: '' }, "Item 3: 'Text' is empty"],
		[
			'oversized session text',
			session,
			{ text: 'x'.repeat(4097) },
			"Item 3: 'Text' is 4097 characters long, more than the 4096 WhatsApp allows",
		],
		[
			'object session text',
			session,
			{ text: { body: 'Hi' } },
			"Item 3: 'Text' is an object, but it must be text",
		],
		[
			'template name on a session message',
			session,
			{ templateName: 'order_update' },
			"Item 3: 'Template Name' is set on a session message",
		],
		[
			'components on a session message',
			session,
			{ componentsJson: '{"body": {"1": "x"}}' },
			"Item 3: 'Components' are set on a session message",
		],
		[
			'session to a national number',
			session,
			{ to: '98123 45678' },
			`Item 3: 'To' "98123 45678" has no country code`,
		],
	])('%s', (_case, base, patch, expected) => {
		const error = errorFor(whatsappSendSchema, whatsappFieldGuide, { ...base, ...patch });
		expect(error.message).toContain(expected);
		expect(error.description).toBeTruthy();
	});
});
