import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { formFields, useSandbox } from '../helpers/sandboxForTests';
import { runWorkflow } from '../helpers/runWorkflow';
import {
	messagingWorkflow,
	smsFromItem,
	smsItem,
	whatsappSessionFromItem,
	whatsappSessionItem,
	whatsappTemplateFromItem,
	whatsappTemplateItem,
} from './support/messagingWorkflow';
import { containsSecret, createTally, reportTallyAfterAll } from './support/reliabilityTally';

type Resource = 'sms' | 'whatsappTemplate' | 'whatsappSession';

interface BadInputCase {
	name: string;
	resource: Resource;
	/** Which item of the batch of three carries the bad value. */
	badIndex: 0 | 1 | 2;
	/** Merged into the bad item only: the node's fields read it through expressions. */
	bad: IDataObject;
	/** Merged into the node's parameters for the whole batch, e.g. to read a JSON field. */
	parameters?: INodeParameters;
	/** The error message after "Item <n>: ": the field and what is wrong with it. */
	message: string;
	/** A part of the description that tells the user how to fix it. */
	fix: string;
}

const baseParameters: Record<Resource, INodeParameters> = {
	sms: smsFromItem,
	whatsappTemplate: whatsappTemplateFromItem,
	whatsappSession: whatsappSessionFromItem,
};

const goodItem: Record<Resource, (to: string, orderId: string) => IDataObject> = {
	sms: smsItem,
	whatsappTemplate: whatsappTemplateItem,
	whatsappSession: whatsappSessionItem,
};

const smsJsonVariables: INodeParameters = {
	variablesInputMode: 'json',
	variablesJson: '={{ $json.variablesJson }}',
};
const goodVariablesJson = '{"customer_name": "Asha", "order_id": "77", "eta": "Fri"}';
const templateJsonComponents: INodeParameters = {
	componentsInputMode: 'json',
	componentsJson: '={{ $json.componentsJson }}',
};
const goodComponentsJson =
	'{"header": {"1": "Order 77"}, "body": {"1": "Asha", "2": "24 Nov"}, "buttons": {"1": "track-77"}}';
const withTimeoutFromItem: INodeParameters = {
	options: { ...(smsFromItem.options as object), timeout: '={{ $json.timeout }}' },
};
const withKeyFromItem: INodeParameters = {
	options: {
		...(smsFromItem.options as object),
		// Good items get a key of their own: one that resolves to empty is bad input too.
		idempotencyKey: "={{ $json.key ?? 'row-' + $itemIndex + '-' + $now.toMillis() }}",
	},
};

const E164_RULE =
	'is not a valid international number (E.164 allows a "+", a country code not starting with 0 and 7 to 15 digits in all)';

const cases: BadInputCase[] = [
	// SMS: To
	{
		name: 'SMS To empty',
		resource: 'sms',
		badIndex: 2,
		bad: { to: '' },
		message: "'To' is empty",
		fix: 'Enter the recipient number',
	},
	{
		name: 'SMS To only spaces',
		resource: 'sms',
		badIndex: 1,
		bad: { to: '   ' },
		message: "'To' is empty",
		fix: 'Enter the recipient number',
	},
	{
		name: 'SMS To null',
		resource: 'sms',
		badIndex: 0,
		bad: { to: null },
		message: "'To' is empty",
		fix: 'international format',
	},
	{
		name: 'SMS To an object',
		resource: 'sms',
		badIndex: 2,
		bad: { to: { phone: '+919812345678' } },
		message: "'To' is an object, but it must be a phone number",
		fix: 'e.g. +919812345678',
	},
	{
		name: 'SMS To a list',
		resource: 'sms',
		badIndex: 1,
		bad: { to: ['+919812345678', '+919812345679'] },
		message: "'To' is a list, but it must be a phone number",
		fix: 'e.g. +919812345678',
	},
	{
		name: 'SMS To a number, even with a default country code',
		resource: 'sms',
		badIndex: 2,
		bad: { to: 919812345678, countryCode: '91' },
		message: "'To' is a number (919812345678), but phone numbers must be text",
		fix: 'As a number it lost its "+" and leading zeros',
	},
	{
		name: 'SMS To national, no default country code',
		resource: 'sms',
		badIndex: 0,
		bad: { to: '098123 45678' },
		message: `'To' "098123 45678" has no country code`,
		fix: 'Options > Default Country Code',
	},
	{
		name: 'SMS To national too short with a default country code',
		resource: 'sms',
		badIndex: 1,
		bad: { to: '123', countryCode: '91' },
		message: `'To' "123" ${E164_RULE}`,
		fix: 'Check the digits and the country code',
	},
	{
		name: 'SMS To with letters',
		resource: 'sms',
		badIndex: 2,
		bad: { to: '+91 98123 ABCDE' },
		message: `'To' "+91 98123 ABCDE" contains characters that are not part of a phone number`,
		fix: 'Use digits with an optional leading "+"',
	},
	{
		name: 'SMS To with a country code starting 0',
		resource: 'sms',
		badIndex: 1,
		bad: { to: '+0912345678' },
		message: `'To' "+0912345678" ${E164_RULE}`,
		fix: 'Check the digits',
	},
	{
		name: 'SMS To with 16 digits',
		resource: 'sms',
		badIndex: 0,
		bad: { to: '+9198123456789012' },
		message: `'To' "+9198123456789012" ${E164_RULE}`,
		fix: 'Check the digits',
	},
	{
		name: 'SMS To oversized',
		resource: 'sms',
		badIndex: 2,
		bad: { to: `+91${'9'.repeat(40)}` },
		message: "'To' is 43 characters long, too long for a phone number",
		fix: 'Enter one recipient number',
	},
	// SMS: Default Country Code
	{
		name: 'SMS Default Country Code letters',
		resource: 'sms',
		badIndex: 1,
		bad: { to: '9812345678', countryCode: 'IN' },
		message: `'Options > Default Country Code' "IN" is not a country calling code`,
		fix: 'Enter 1 to 4 digits',
	},
	{
		name: 'SMS Default Country Code five digits',
		resource: 'sms',
		badIndex: 2,
		bad: { to: '9812345678', countryCode: '91234' },
		message: `'Options > Default Country Code' "91234" is not a country calling code`,
		fix: 'Enter 1 to 4 digits',
	},
	// SMS: DLT Entity ID and DLT Template ID
	{
		name: 'SMS DLT Entity ID empty',
		resource: 'sms',
		badIndex: 0,
		bad: { entityId: '' },
		message: "'DLT Entity ID' is empty",
		fix: 'Enter a value, e.g. 1201159876543210123',
	},
	{
		name: 'SMS DLT Entity ID only spaces',
		resource: 'sms',
		badIndex: 2,
		bad: { entityId: ' \t ' },
		message: "'DLT Entity ID' is empty",
		fix: 'Enter a value',
	},
	{
		name: 'SMS DLT Entity ID a number',
		resource: 'sms',
		badIndex: 1,
		bad: { entityId: 12011598765 },
		message: "'DLT Entity ID' is a number (12011598765), but it must be text",
		fix: 'pass the value as text',
	},
	{
		name: 'SMS DLT Entity ID an object',
		resource: 'sms',
		badIndex: 2,
		bad: { entityId: { id: '1201159876543210123' } },
		message: "'DLT Entity ID' is an object, but it must be text",
		fix: 'Map a text value',
	},
	{
		name: 'SMS DLT Entity ID oversized',
		resource: 'sms',
		badIndex: 0,
		bad: { entityId: '1'.repeat(65) },
		message: "'DLT Entity ID' is 65 characters long, more than the 64 allowed",
		fix: 'Shorten it to at most 64 characters',
	},
	{
		name: 'SMS DLT Template ID null',
		resource: 'sms',
		badIndex: 1,
		bad: { templateId: null },
		message: "'DLT Template ID' is empty",
		fix: 'Enter a value, e.g. 1207161111111111111',
	},
	{
		name: 'SMS DLT Template ID a list',
		resource: 'sms',
		badIndex: 2,
		bad: { templateId: ['1207161111111111111'] },
		message: "'DLT Template ID' is a list, but it must be text",
		fix: 'Map a text value',
	},
	// SMS: Template Variables as rows
	{
		name: 'SMS variable value an object',
		resource: 'sms',
		badIndex: 1,
		bad: { values: [{ first: 'Asha' }, '77', 'Fri'] },
		message:
			"'Template Variables' row 1 (value) is an object, but variable values must be text or numbers",
		fix: 'JSON.stringify',
	},
	{
		name: 'SMS variable value a list',
		resource: 'sms',
		badIndex: 2,
		bad: { values: ['Asha', ['77', '78'], 'Fri'] },
		message:
			"'Template Variables' row 2 (value) is a list, but variable values must be text or numbers",
		fix: 'Map a single text or number value',
	},
	{
		name: 'SMS variable value null',
		resource: 'sms',
		badIndex: 0,
		bad: { values: ['Asha', '77', null] },
		message:
			"'Template Variables' row 3 (value) is null, but variable values must be text or numbers",
		fix: 'Map a single text or number value',
	},
	{
		name: 'SMS variable value missing from the item',
		resource: 'sms',
		badIndex: 2,
		bad: { values: ['Asha'] },
		message:
			"'Template Variables' row 2 (value) is empty, but variable values must be text or numbers",
		fix: 'Map a single text or number value',
	},
	{
		name: 'SMS variable value oversized',
		resource: 'sms',
		badIndex: 1,
		bad: { values: ['x'.repeat(1001), '77', 'Fri'] },
		message:
			"'Template Variables' row 1 (value) is 1001 characters long, more than the 1000 allowed",
		fix: 'at most 1000 characters',
	},
	{
		name: 'SMS variable without a name',
		resource: 'sms',
		badIndex: 2,
		bad: { names: ['', 'order_id', 'eta'] },
		message: "'Template Variables' row 1 (name) has a variable without a name",
		fix: 'exactly as declared in the DLT template',
	},
	{
		name: 'SMS variable name with spaces',
		resource: 'sms',
		badIndex: 0,
		bad: { names: ['customer_name', 'order id!', 'eta'] },
		message: `'Template Variables' row 2 (name) has an invalid variable name "order id!"`,
		fix: 'letters, digits',
	},
	{
		name: 'SMS variable name a number',
		resource: 'sms',
		badIndex: 2,
		bad: { names: ['customer_name', 42, 'eta'] },
		message: "'Template Variables' row 2 (name) is a number, but variable names must be text",
		fix: 'exactly as declared in the DLT template',
	},
	{
		name: 'SMS variable named twice',
		resource: 'sms',
		badIndex: 1,
		bad: { names: ['customer_name', 'order_id', 'customer_name'] },
		message: `'Template Variables' row 3 (name) names the variable "customer_name" twice`,
		fix: 'Keep one row per variable name',
	},
	// SMS: Template Variables as JSON
	{
		name: 'SMS variables JSON invalid',
		resource: 'sms',
		badIndex: 2,
		parameters: smsJsonVariables,
		bad: { variablesJson: '{"customer_name": "Asha",' },
		message:
			"'Template Variables (JSON)' is not valid JSON (Expected double-quoted property name in JSON at position 25 (line 1 column 26))",
		fix: 'Enter a JSON object',
	},
	{
		name: 'SMS variables JSON empty',
		resource: 'sms',
		badIndex: 0,
		parameters: smsJsonVariables,
		bad: { variablesJson: ' ' },
		message: "'Template Variables (JSON)' is empty",
		fix: 'Enter a JSON object',
	},
	{
		name: 'SMS variables JSON a list',
		resource: 'sms',
		badIndex: 1,
		parameters: smsJsonVariables,
		bad: { variablesJson: '["Asha", "77"]' },
		message: "'Template Variables (JSON)' is a list, but it must be a JSON object",
		fix: 'Enter a JSON object',
	},
	{
		name: 'SMS variables JSON a number from an expression',
		resource: 'sms',
		badIndex: 2,
		parameters: smsJsonVariables,
		bad: { variablesJson: 42 },
		message: "'Template Variables (JSON)' is a number, but it must be a JSON object",
		fix: 'Enter a JSON object',
	},
	{
		name: 'SMS variables JSON with a nested object',
		resource: 'sms',
		badIndex: 0,
		parameters: smsJsonVariables,
		bad: { variablesJson: { customer_name: { first: 'Asha' }, order_id: '77', eta: 'Fri' } },
		message: `'Template Variables (JSON)' "customer_name" is an object, but variable values must be text or numbers`,
		fix: 'JSON.stringify',
	},
	{
		name: 'SMS variables JSON with an invalid name',
		resource: 'sms',
		badIndex: 1,
		parameters: smsJsonVariables,
		bad: { variablesJson: '{"customer name": "Asha"}' },
		message: `'Template Variables (JSON)' "customer name" has an invalid variable name "customer name"`,
		fix: 'exactly as declared',
	},
	{
		name: 'SMS Template Variables Input unknown',
		resource: 'sms',
		badIndex: 1,
		parameters: { variablesInputMode: '={{ $json.variablesMode }}' },
		bad: { variablesMode: 'xml' },
		message: `'Template Variables Input' must be "fields" or "json"`,
		fix: 'Choose Using Fields Below or Using JSON',
	},
	// SMS: Callback URL
	{
		name: 'SMS Callback URL ftp',
		resource: 'sms',
		badIndex: 2,
		bad: { callbackUrl: 'ftp://files.example.com/hook' },
		message: `'Options > Callback URL' uses "ftp:", but only http and https are allowed`,
		fix: 'Production URL of a Messaging Trigger',
	},
	{
		name: 'SMS Callback URL javascript',
		resource: 'sms',
		badIndex: 0,
		bad: { callbackUrl: 'javascript:alert(1)' },
		message: `'Options > Callback URL' uses "javascript:", but only http and https are allowed`,
		fix: 'Production URL',
	},
	{
		name: 'SMS Callback URL without a scheme',
		resource: 'sms',
		badIndex: 1,
		bad: { callbackUrl: 'n8n.example.com/webhook/events' },
		message: `'Options > Callback URL' "n8n.example.com/webhook/events" is not an absolute URL`,
		fix: 'https://n8n.example.com/webhook/messaging-events',
	},
	{
		name: 'SMS Callback URL a number',
		resource: 'sms',
		badIndex: 2,
		bad: { callbackUrl: 8080 },
		message: "'Options > Callback URL' is a number, but it must be a URL",
		fix: 'Production URL',
	},
	{
		name: 'SMS Callback URL oversized',
		resource: 'sms',
		badIndex: 1,
		bad: { callbackUrl: `https://n8n.example.com/${'a'.repeat(2048)}` },
		message: "'Options > Callback URL' is longer than 2048 characters",
		fix: 'Production URL',
	},
	// SMS: options read per item
	{
		name: 'SMS Timeout not a number',
		resource: 'sms',
		badIndex: 2,
		parameters: withTimeoutFromItem,
		bad: { timeout: 'soon' },
		message: "'Options > Timeout' is soon, but it must be a number from 1000 to 600000",
		fix: 'remove the option to use the default (30000)',
	},
	{
		name: 'SMS Idempotency Key an object',
		resource: 'sms',
		badIndex: 1,
		parameters: withKeyFromItem,
		bad: { key: { order: 77 } },
		message: "'Options > Idempotency Key' must be text of at most 255 printable ASCII characters",
		fix: 'It travels as an HTTP header',
	},
	{
		name: 'SMS Idempotency Key not ASCII',
		resource: 'sms',
		badIndex: 0,
		parameters: withKeyFromItem,
		bad: { key: 'commande-77-é' },
		message: "'Options > Idempotency Key' must be text of at most 255 printable ASCII characters",
		fix: 'build it from plain ids',
	},
	{
		name: 'SMS Idempotency Key oversized',
		resource: 'sms',
		badIndex: 2,
		parameters: withKeyFromItem,
		bad: { key: 'k'.repeat(256) },
		message: "'Options > Idempotency Key' must be text of at most 255 printable ASCII characters",
		fix: 'build it from plain ids',
	},
	// WhatsApp template
	{
		name: 'WhatsApp To national, no default country code',
		resource: 'whatsappTemplate',
		badIndex: 1,
		bad: { to: '9812345678' },
		message: `'To' "9812345678" has no country code`,
		fix: 'Default Country Code',
	},
	{
		name: 'WhatsApp Message Type unknown',
		resource: 'whatsappTemplate',
		badIndex: 2,
		bad: { messageType: 'sms' },
		message: `'Message Type' must be "template" or "session"`,
		fix: 'Choose Template or Session',
	},
	{
		name: 'WhatsApp Components Input unknown',
		resource: 'whatsappTemplate',
		badIndex: 0,
		parameters: { componentsInputMode: '={{ $json.componentsMode }}' },
		bad: { componentsMode: 'yaml' },
		message: `'Components Input' must be "fields" or "json"`,
		fix: 'Choose Using Fields Below or Using JSON',
	},
	{
		name: 'WhatsApp Template Name empty',
		resource: 'whatsappTemplate',
		badIndex: 0,
		bad: { templateName: '' },
		message: "'Template Name' is empty",
		fix: 'e.g. order_update',
	},
	{
		name: 'WhatsApp Template Name a number',
		resource: 'whatsappTemplate',
		badIndex: 1,
		bad: { templateName: 42 },
		message: "'Template Name' is a number (42), but it must be text",
		fix: 'pass the value as text',
	},
	{
		name: 'WhatsApp Template Name oversized',
		resource: 'whatsappTemplate',
		badIndex: 2,
		bad: { templateName: 't'.repeat(513) },
		message: "'Template Name' is 513 characters long, more than the 512 allowed",
		fix: 'Shorten it',
	},
	{
		name: 'WhatsApp Text on a template message',
		resource: 'whatsappTemplate',
		badIndex: 0,
		bad: { text: 'Your order has shipped' },
		message: "'Text' is set on a template message",
		fix: 'switch Message Type to Session or clear Text',
	},
	{
		name: 'WhatsApp component position 0',
		resource: 'whatsappTemplate',
		badIndex: 1,
		bad: { bodyPositions: [0, 1] },
		message: `'Components' body row 1 has the position "0" in body, but positions are whole numbers from 1`,
		fix: 'Number the variables of each section 1, 2, 3',
	},
	{
		name: 'WhatsApp component position not numeric',
		resource: 'whatsappTemplate',
		badIndex: 2,
		bad: { bodyPositions: ['first', 2] },
		message: `'Components' body row 1 has the position "first" in body, but positions are whole numbers from 1`,
		fix: 'Number the variables',
	},
	{
		name: 'WhatsApp component positions with a gap',
		resource: 'whatsappTemplate',
		badIndex: 0,
		bad: { bodyPositions: [1, 3] },
		message: `'Components' "body" has positions 1, 3, but they must run 1, 2, 3… without gaps or repeats`,
		fix: 'in the order the template declares them',
	},
	{
		name: 'WhatsApp component position twice',
		resource: 'whatsappTemplate',
		badIndex: 1,
		bad: { bodyPositions: [2, 2] },
		message: `'Components' body row 2 has the body position 2 twice`,
		fix: 'Number the variables',
	},
	{
		name: 'WhatsApp component value an object',
		resource: 'whatsappTemplate',
		badIndex: 2,
		bad: { body: [{ name: 'Asha' }, '24 Nov'] },
		message: "'Components' body row 1 is an object, but variable values must be text or numbers",
		fix: 'JSON.stringify',
	},
	{
		name: 'WhatsApp components JSON invalid',
		resource: 'whatsappTemplate',
		badIndex: 0,
		parameters: templateJsonComponents,
		bad: { componentsJson: '{"body": {"1": "Asha"}' },
		message:
			"'Components (JSON)' is not valid JSON (Expected ',' or '}' after property value in JSON at position 22 (line 1 column 23))",
		fix: 'Enter a JSON object',
	},
	{
		name: 'WhatsApp components JSON unknown section',
		resource: 'whatsappTemplate',
		badIndex: 1,
		parameters: templateJsonComponents,
		bad: { componentsJson: '{"footer": {"1": "Thanks"}}' },
		message: `'Components (JSON)' has an unknown key "footer"`,
		fix: 'header, body and buttons',
	},
	{
		name: 'WhatsApp components JSON non-numeric position',
		resource: 'whatsappTemplate',
		badIndex: 2,
		parameters: templateJsonComponents,
		bad: { componentsJson: { body: { first: 'Asha', '2': '24 Nov' } } },
		message: `'Components (JSON)' body position "first" has the position "first" in body, but positions are whole numbers from 1`,
		fix: 'Number the variables',
	},
	{
		name: 'WhatsApp components JSON section a list',
		resource: 'whatsappTemplate',
		badIndex: 0,
		parameters: templateJsonComponents,
		bad: { componentsJson: '{"body": ["Asha", "24 Nov"]}' },
		message: `'Components (JSON)' "body" has a list under "body", but it must be an object keyed by position`,
		fix: '{"1": "first value"',
	},
	{
		name: 'WhatsApp components JSON value a list',
		resource: 'whatsappTemplate',
		badIndex: 1,
		parameters: templateJsonComponents,
		bad: { componentsJson: { body: { '1': ['Asha'], '2': '24 Nov' } } },
		message: `'Components (JSON)' body position "1" is a list, but variable values must be text or numbers`,
		fix: 'Map a single text or number value',
	},
	// WhatsApp session
	{
		name: 'WhatsApp session Text empty',
		resource: 'whatsappSession',
		badIndex: 2,
		bad: { text: '' },
		message: "'Text' is empty",
		fix: 'Enter the message text',
	},
	{
		name: 'WhatsApp session Text only spaces',
		resource: 'whatsappSession',
		badIndex: 0,
		bad: { text: '  \n ' },
		message: "'Text' is empty",
		fix: 'Enter the message text',
	},
	{
		name: 'WhatsApp session Text a number',
		resource: 'whatsappSession',
		badIndex: 1,
		bad: { text: 42 },
		message: "'Text' is a number, but it must be text",
		fix: 'Enter the message text',
	},
	{
		name: 'WhatsApp session Text an object',
		resource: 'whatsappSession',
		badIndex: 2,
		bad: { text: { body: 'Hi' } },
		message: "'Text' is an object, but it must be text",
		fix: 'Enter the message text',
	},
	{
		name: 'WhatsApp session Text oversized',
		resource: 'whatsappSession',
		badIndex: 0,
		bad: { text: 'x'.repeat(4097) },
		message: "'Text' is 4097 characters long, more than the 4096 WhatsApp allows",
		fix: 'split it into several messages',
	},
	{
		name: 'WhatsApp session with a Template Name',
		resource: 'whatsappSession',
		badIndex: 1,
		bad: { templateName: 'order_update' },
		message: "'Template Name' is set on a session message",
		fix: 'clear Template Name',
	},
	{
		name: 'WhatsApp session with components JSON',
		resource: 'whatsappSession',
		badIndex: 2,
		bad: { componentsMode: 'json', componentsJson: '{"body": {"1": "Asha"}}' },
		message: "'Components' are set on a session message",
		fix: 'remove the components',
	},
	{
		name: 'WhatsApp session To an object',
		resource: 'whatsappSession',
		badIndex: 0,
		bad: { to: { wa_id: '919812345678' } },
		message: "'To' is an object, but it must be a phone number",
		fix: 'e.g. +919812345678',
	},
];

const sandbox = useSandbox();
const tally = createTally();
reportTallyAfterAll('bad-input matrix', tally);

function phoneFor(caseNumber: number, itemIndex: number): string {
	return `+9197${String(caseNumber).padStart(3, '0')}0000${itemIndex}`;
}

function batchFor(badInput: BadInputCase, caseNumber: number) {
	return [0, 1, 2].map((itemIndex) => {
		const json = goodItem[badInput.resource](
			phoneFor(caseNumber, itemIndex),
			`${caseNumber}-${itemIndex}`,
		);
		if (badInput.parameters === smsJsonVariables) json.variablesJson = goodVariablesJson;
		if (badInput.parameters === templateJsonComponents) json.componentsJson = goodComponentsJson;
		return { json: itemIndex === badInput.badIndex ? { ...json, ...badInput.bad } : json };
	});
}

function recipientOf(request: { contentType: string; rawBody: string }): string | undefined {
	const fields = request.contentType.includes('json')
		? (JSON.parse(request.rawBody) as Record<string, string>)
		: formFields(request.rawBody);
	return fields.to;
}

describe('bad input never reaches the provider and is named precisely', () => {
	test('the matrix covers every field of both resources with at least 40 cases', () => {
		expect(cases.length).toBeGreaterThanOrEqual(40);
		const fieldsNamed = new Set(cases.map((badInput) => /^'([^']+)'/.exec(badInput.message)?.[1]));
		expect([...fieldsNamed].sort()).toEqual(
			[
				'Options > Callback URL',
				'Components',
				'Components (JSON)',
				'Components Input',
				'DLT Entity ID',
				'DLT Template ID',
				'Options > Default Country Code',
				'Message Type',
				'Options > Idempotency Key',
				'Options > Timeout',
				'Template Name',
				'Template Variables',
				'Template Variables (JSON)',
				'Template Variables Input',
				'Text',
				'To',
			].sort(),
		);
	});

	test.each(cases.map((badInput, caseNumber) => ({ ...badInput, caseNumber })))(
		'$name (item $badIndex of 3)',
		async (badInput) => {
			const { caseNumber, badIndex } = badInput;
			const expectedMessage = `Item ${badIndex}: ${badInput.message}`;
			const parameters = { ...baseParameters[badInput.resource], ...badInput.parameters };
			const workflow = messagingWorkflow(parameters);
			const credentials = { baseUrl: sandbox().url, apiKey: sandbox().apiKey };
			const goodPhones = [0, 1, 2]
				.filter((index) => index !== badIndex)
				.map((index) => phoneFor(caseNumber, index));
			for (const phone of goodPhones) sandbox().simulateInbound(phone);
			tally.cases++;

			const stopped = await runWorkflow({
				workflow,
				credentials,
				items: batchFor(badInput, caseNumber),
				continueOnFail: false,
			});

			expect(stopped.error?.message).toBe(expectedMessage);
			expect(stopped.error?.description).toContain(badInput.fix);
			expect((stopped.error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(
				badIndex,
			);
			expect(stopped.outputs.Messaging).toBeUndefined();
			expect(sandbox().requests()).toEqual([]);
			if (containsSecret(JSON.stringify(stopped.run), sandbox().apiKey)) tally.secretsLeaked++;

			const continued = await runWorkflow({
				workflow,
				credentials,
				items: batchFor(badInput, caseNumber),
				continueOnFail: true,
			});

			expect(continued.error).toBeUndefined();
			const output = continued.outputs.Messaging;
			expect(output).toHaveLength(3);
			expect(output[badIndex]).toEqual({
				json: { error: expectedMessage, description: expect.stringContaining(badInput.fix) },
				pairedItem: { item: badIndex },
			});
			const received = sandbox().requests().map(recipientOf).sort();
			expect(received).toEqual([...goodPhones].sort());
			for (const index of [0, 1, 2].filter((other) => other !== badIndex)) {
				const accepted = sandbox()
					.messages()
					.filter((message) => message.to === phoneFor(caseNumber, index));
				if (accepted.length === 0) tally.messagesLost++;
				if (accepted.length > 1) tally.messagesDuplicated++;
				expect(accepted).toHaveLength(1);
				expect(output[index]).toEqual({
					json: accepted[0].acknowledgement,
					pairedItem: { item: index },
				});
			}
			if (containsSecret(JSON.stringify(continued.run), sandbox().apiKey)) tally.secretsLeaked++;
		},
	);
});
