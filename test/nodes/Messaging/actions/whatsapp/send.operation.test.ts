import {
	description,
	prepare,
} from '../../../../../nodes/Messaging/actions/whatsapp/send.operation';
import { operationHarness, type BadCase, type SendCase } from '../support/operationHarness';

/**
 * The WhatsApp send operation's contract: the node's parameters for one item become one exact request. The
 * request is followed to the wire the way the router sends it (the operation's prepare, then the item's send
 * settings, then the transport); only n8n's own parts are faked: parameter reading and the HTTP helper.
 */

const BASE_URL = 'https://api.example.com/';
const WHATSAPP_URL = 'https://api.example.com/v1/whatsapp/send';

const template = {
	resource: 'whatsapp',
	operation: 'send',
	to: '+919812345678',
	messageType: 'template',
	templateName: 'order_update',
	componentsInputMode: 'fields',
	components: {},
	options: {},
};

/** A session message as n8n holds it: the template-only parameters are hidden, so absent. */
const session = {
	resource: 'whatsapp',
	operation: 'send',
	to: '+919812345678',
	messageType: 'session',
	text: 'Thanks, your order has shipped.',
	options: {},
};

const { sendItem, expectSent, expectRefused } = operationHarness({
	prepare,
	baseUrl: BASE_URL,
	path: '/v1/whatsapp/send',
	url: WHATSAPP_URL,
	jsonField: 'components',
	answer: {
		statusCode: 200,
		headers: {},
		body: '{"message_id":"wamid.1","status":"sent","channel":"whatsapp"}',
	},
	acknowledgement: { message_id: 'wamid.1', status: 'sent', channel: 'whatsapp' },
});

const sendCases: SendCase[] = [
	{
		title: 'template without variables: no components field, form body, no Idempotency-Key',
		parameters: template,
		body: {
			to: '+919812345678',
			type: 'template',
			template_name: 'order_update',
		},
	},
	{
		title: 'Message Type and Components left at their defaults: a template without components',
		parameters: {
			...template,
			messageType: undefined,
			componentsInputMode: undefined,
			components: undefined,
		},
		body: {
			to: '+919812345678',
			type: 'template',
			template_name: 'order_update',
		},
	},
	{
		title: 'template with a header variable row only',
		parameters: {
			...template,
			components: { header: [{ index: 1, value: 'Order 1234' }] },
		},
		body: {
			to: '+919812345678',
			type: 'template',
			template_name: 'order_update',
			components: { header: { '1': 'Order 1234' } },
		},
	},
	{
		title: 'template with body rows out of order: keyed by position, numbers stay numbers',
		parameters: {
			...template,
			components: {
				body: [
					{ index: 3, value: '24 Nov' },
					{ index: 1, value: 'Asha' },
					{ index: 2, value: 3 },
				],
			},
		},
		body: {
			to: '+919812345678',
			type: 'template',
			template_name: 'order_update',
			components: { body: { '1': 'Asha', '2': 3, '3': '24 Nov' } },
		},
	},
	{
		title: 'template with a button payload whose position an expression gave as padded text',
		parameters: {
			...template,
			components: { buttons: [{ index: ' 1 ', value: 'track-1234' }] },
		},
		body: {
			to: '+919812345678',
			type: 'template',
			template_name: 'order_update',
			components: { buttons: { '1': 'track-1234' } },
		},
	},
	{
		title: 'template with header, body and button rows; an empty section is left out',
		parameters: {
			...template,
			components: {
				body: [
					{ index: 1, value: 'Asha' },
					{ index: 2, value: '24 Nov' },
				],
				buttons: [{ index: 1, value: 'track-1234' }],
				header: [{ index: 1, value: 'Order 1234' }],
			},
		},
		body: {
			to: '+919812345678',
			type: 'template',
			template_name: 'order_update',
			components: {
				header: { '1': 'Order 1234' },
				body: { '1': 'Asha', '2': '24 Nov' },
				buttons: { '1': 'track-1234' },
			},
		},
	},
	{
		title: 'template with a section whose rows were all removed sends no components',
		parameters: { ...template, components: { body: [] } },
		body: {
			to: '+919812345678',
			type: 'template',
			template_name: 'order_update',
		},
	},
	{
		title: 'JSON mode: JSON text with every section; stale rows are ignored',
		parameters: {
			...template,
			componentsInputMode: 'json',
			components: { body: [{ index: 1, value: 'stale' }] },
			componentsJson:
				'{"header": {"1": "Order 1234"}, "body": {"2": "24 Nov", "1": "Asha"}, "buttons": {"1": 1234}}',
		},
		body: {
			to: '+919812345678',
			type: 'template',
			template_name: 'order_update',
			components: {
				header: { '1': 'Order 1234' },
				body: { '1': 'Asha', '2': '24 Nov' },
				buttons: { '1': 1234 },
			},
		},
	},
	{
		title: 'JSON mode: an object returned by an expression',
		parameters: {
			...template,
			componentsInputMode: 'json',
			components: undefined,
			componentsJson: { body: { '1': 'Ravi' } },
		},
		body: {
			to: '+919812345678',
			type: 'template',
			template_name: 'order_update',
			components: { body: { '1': 'Ravi' } },
		},
	},
	{
		title: 'JSON mode: the editor default {} sends no components',
		parameters: {
			...template,
			componentsInputMode: 'json',
			components: undefined,
			componentsJson: '{}',
		},
		body: {
			to: '+919812345678',
			type: 'template',
			template_name: 'order_update',
		},
	},
	{
		title: 'JSON mode: an empty section sends no components',
		parameters: {
			...template,
			componentsInputMode: 'json',
			components: undefined,
			componentsJson: '{"body": {}}',
		},
		body: {
			to: '+919812345678',
			type: 'template',
			template_name: 'order_update',
		},
	},
	{
		title: 'fields mode: a stale JSON components object is ignored',
		parameters: { ...template, componentsJson: '{"body": {"1": "stale"}}' },
		body: {
			to: '+919812345678',
			type: 'template',
			template_name: 'order_update',
		},
	},
	{
		title: 'template name is sent trimmed, To is cleaned to E.164',
		parameters: {
			...template,
			to: '+91 (98123) 456-78',
			templateName: '  shipping_update\n',
		},
		body: {
			to: '+919812345678',
			type: 'template',
			template_name: 'shipping_update',
		},
	},
	{
		title: 'session: only to, type and the text exactly as typed',
		parameters: {
			...session,
			text: '  Hi Asha,\nyour order 1234 has shipped.  ',
		},
		body: {
			to: '+919812345678',
			type: 'session',
			text: '  Hi Asha,\nyour order 1234 has shipped.  ',
		},
	},
	{
		title:
			'session: component sections left without rows count as no components, as for a template',
		parameters: { ...session, components: { body: [], buttons: [] } },
		body: { to: '+919812345678', type: 'session', text: 'Thanks, your order has shipped.' },
	},
	{
		title: 'session: text of exactly 4096 characters is sent whole',
		parameters: { ...session, text: 'x'.repeat(4096) },
		body: { to: '+919812345678', type: 'session', text: 'x'.repeat(4096) },
	},
	{
		title: 'session: a national number completed with Options > Default Country Code',
		parameters: {
			...session,
			to: '098123 45678',
			options: { defaultCountryCode: '91' },
		},
		body: {
			to: '+919812345678',
			type: 'session',
			text: 'Thanks, your order has shipped.',
		},
	},
	{
		title: 'template: JSON body encoding, Idempotency Key and timeout',
		parameters: {
			...template,
			components: { body: [{ index: 1, value: 'Asha' }] },
			options: {
				bodyEncoding: 'json',
				idempotencyKey: 'order-1234-whatsapp',
				timeout: 12000,
			},
		},
		encoding: 'json',
		idempotencyKey: 'order-1234-whatsapp',
		timeout: 12000,
		body: {
			to: '+919812345678',
			type: 'template',
			template_name: 'order_update',
			components: { body: { '1': 'Asha' } },
		},
	},
	{
		title: 'session: Idempotency Key in a form body',
		parameters: { ...session, options: { idempotencyKey: 'reply-77' } },
		idempotencyKey: 'reply-77',
		body: {
			to: '+919812345678',
			type: 'session',
			text: 'Thanks, your order has shipped.',
		},
	},
	{
		title: 'a Callback URL left in the options is not a WhatsApp field and is never sent',
		parameters: {
			...session,
			options: { callbackUrl: 'https://n8n.example.com/webhook/events' },
		},
		body: {
			to: '+919812345678',
			type: 'session',
			text: 'Thanks, your order has shipped.',
		},
	},
];

describe('WhatsApp → Send: parameters → exact request', () => {
	test.each(sendCases.map((sendCase) => [sendCase.title, sendCase] as const))(
		'%s',
		async (_title, sendCase) => {
			await expectSent(sendCase);
		},
	);

	test('components is JSON-encoded text on the wire, not nested form fields', async () => {
		const { sent } = await sendItem({
			...template,
			components: {
				body: [{ index: 1, value: 'Asha K' }],
				buttons: [{ index: 1, value: 7 }],
			},
		});

		expect(sent[0].options.body).toBe(
			'to=%2B919812345678&type=template&template_name=order_update' +
				'&components=%7B%22body%22%3A%7B%221%22%3A%22Asha+K%22%7D%2C%22buttons%22%3A%7B%221%22%3A7%7D%7D',
		);
	});

	test('the operation describes exactly the fields it reads; Template and Session show disjoint fields', () => {
		expect(description.map((property) => property.name)).toEqual([
			'to',
			'messageType',
			'templateName',
			'componentsInputMode',
			'components',
			'componentsJson',
			'text',
			'options',
		]);
		const shownFor = (messageType: string) =>
			description
				.filter((property) => {
					const types = property.displayOptions?.show?.messageType as string[] | undefined;
					return types === undefined || types.includes(messageType);
				})
				.map((property) => property.name);
		expect(shownFor('template')).toEqual([
			'to',
			'messageType',
			'templateName',
			'componentsInputMode',
			'components',
			'componentsJson',
			'options',
		]);
		expect(shownFor('session')).toEqual(['to', 'messageType', 'text', 'options']);
		const messageType = description.find((property) => property.name === 'messageType');
		expect(messageType?.default).toBe('template');
		expect(
			messageType?.options?.map((option) => ('value' in option ? option.value : undefined)),
		).toEqual(['session', 'template']);
		const options = description.find((property) => property.name === 'options')?.options ?? [];
		expect(options.map((option) => ('name' in option ? option.name : undefined))).not.toContain(
			'callbackUrl',
		);
	});
});

const POSITION_FIX =
	'Number the variables of each section 1, 2, 3… in the order the template declares them.';

const badCases: BadCase[] = [
	{
		title: 'a Message Type from an expression in the wrong case',
		parameters: { ...template, messageType: 'Template' },
		itemIndex: 1,
		message: `Item 1: 'Message Type' must be "template" or "session"`,
		description: 'Choose Template or Session.',
	},
	{
		title: 'Template Name not set',
		parameters: { ...template, templateName: undefined },
		itemIndex: 0,
		message: "Item 0: 'Template Name' is empty",
		description: 'Enter a value, e.g. order_update.',
	},
	{
		title: 'Template Name longer than 512 characters',
		parameters: { ...template, templateName: 'a'.repeat(513) },
		itemIndex: 6,
		message: "Item 6: 'Template Name' is 513 characters long, more than the 512 allowed",
		description: 'Shorten it to at most 512 characters.',
	},
	{
		title: 'a component row at position 0',
		parameters: {
			...template,
			components: { body: [{ index: 0, value: 'Asha' }] },
		},
		itemIndex: 0,
		message: `Item 0: 'Components' body row 1 has the position "0" in body, but positions are whole numbers from 1`,
		description: POSITION_FIX,
	},
	{
		title: 'button rows that do not start at 1',
		parameters: {
			...template,
			components: {
				buttons: [
					{ index: 2, value: 'track' },
					{ index: 3, value: 'cancel' },
				],
			},
		},
		itemIndex: 0,
		message: `Item 0: 'Components' "buttons" has positions 2, 3, but they must run 1, 2, 3… without gaps or repeats`,
		description: POSITION_FIX,
	},
	{
		title: 'a components section the editor does not offer',
		parameters: {
			...template,
			components: { footer: [{ index: 1, value: 'x' }] },
		},
		itemIndex: 0,
		message: `Item 0: 'Components' "footer" has an unknown section "footer"`,
		description: 'Use only the header, body and buttons sections.',
	},
	{
		title: 'JSON mode: Components (JSON) cleared',
		parameters: {
			...template,
			componentsInputMode: 'json',
			componentsJson: '',
		},
		itemIndex: 2,
		message: "Item 2: 'Components (JSON)' is empty",
		description: 'Enter a JSON object, e.g. {"body": {"1": "Asha"}}.',
	},
	{
		title: 'JSON mode: an object as a button payload',
		parameters: {
			...template,
			componentsInputMode: 'json',
			componentsJson: '{"buttons": {"1": {"payload": "track-1234"}}}',
		},
		itemIndex: 0,
		message: `Item 0: 'Components (JSON)' buttons position "1" is an object, but variable values must be text or numbers`,
		description:
			'Map a single text or number value, e.g. {{ $json.customer_name }}; turn objects into text first, e.g. {{ JSON.stringify($json.order) }}.',
	},
	{
		title: 'JSON mode: a section given as text by an expression',
		parameters: {
			...template,
			componentsInputMode: 'json',
			componentsJson: { body: 'Asha' },
		},
		itemIndex: 0,
		message: `Item 0: 'Components (JSON)' "body" has a string under "body", but it must be an object keyed by position`,
		description: 'Write the section as {"1": "first value", "2": "second value"}.',
	},
	{
		title: 'session without Text',
		parameters: { ...session, text: undefined },
		itemIndex: 3,
		message: "Item 3: 'Text' is empty",
		description: 'Enter the message text, e.g. Your order has shipped.',
	},
	{
		title: 'session Text of only spaces and newlines',
		parameters: { ...session, text: '  \n\t ' },
		itemIndex: 0,
		message: "Item 0: 'Text' is empty",
		description: 'Enter the message text, e.g. Your order has shipped.',
	},
	{
		title: 'session Text that an expression made a number',
		parameters: { ...session, text: 42 },
		itemIndex: 0,
		message: "Item 0: 'Text' is a number, but it must be text",
		description: 'Enter the message text, e.g. Your order has shipped.',
	},
	{
		title: 'session with a leftover Template Name and no Text: both are named',
		parameters: { ...session, templateName: 'order_update', text: '' },
		itemIndex: 0,
		message: "Item 0: 'Template Name' is set on a session message",
		description:
			"Session messages carry only Text: switch Message Type to Template or clear Template Name. Also to fix in this item: 'Text' is empty.",
	},
	{
		title: 'template with leftover Text and no Template Name: both are named',
		parameters: { ...template, templateName: '', text: 'Hello' },
		itemIndex: 0,
		message: "Item 0: 'Text' is set on a template message",
		description:
			"Template messages take their words from the approved template: switch Message Type to Session or clear Text. Also to fix in this item: 'Template Name' is empty.",
	},
	{
		title: 'a To too short to be a number',
		parameters: { ...session, to: '+91 981' },
		itemIndex: 0,
		message: `Item 0: 'To' "+91 981" is not a valid international number (E.164 allows a "+", a country code not starting with 0 and 7 to 15 digits in all)`,
		description: 'Check the digits and the country code, e.g. +919812345678.',
	},
	{
		title: 'a Default Country Code written with a trunk prefix',
		parameters: {
			...template,
			to: '98123 45678',
			options: { defaultCountryCode: '0091' },
		},
		itemIndex: 0,
		message: `Item 0: 'Options > Default Country Code' "0091" is not a country calling code`,
		description:
			'Enter 1 to 4 digits without "+", e.g. 91 for India or 1 for the USA, or leave it empty.',
	},
];

describe('WhatsApp → Send: bad parameters → the error naming field, item and fix; nothing sent', () => {
	test.each(badCases.map((badCase) => [badCase.title, badCase] as const))(
		'%s',
		async (_title, badCase) => {
			await expectRefused(badCase);
		},
	);
});
