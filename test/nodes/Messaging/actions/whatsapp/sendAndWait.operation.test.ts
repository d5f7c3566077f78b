import { prepare } from '../../../../../nodes/Messaging/actions/whatsapp/sendAndWait.operation';
import {
	operationHarness,
	signedResumeUrl,
	type BadCase,
	type SendCase,
} from '../support/operationHarness';

/**
 * WhatsApp → Send and Wait for Response: the question with its answer links becomes one exact request. The links
 * are n8n-core's own signed resume links (node id "messaging", execution 231); a template carries each one as
 * the dynamic suffix of a URL button. Bad input is refused naming the item, the field and the fix, and nothing
 * is sent.
 */

const approveLink = signedResumeUrl('messaging', { approved: 'true' });
const declineLink = signedResumeUrl('messaging', { approved: 'false' });
const approveSuffix = approveLink.slice('https://n8n.example.com/webhook-waiting/'.length);
const declineSuffix = declineLink.slice('https://n8n.example.com/webhook-waiting/'.length);

const session = {
	resource: 'whatsapp',
	operation: 'sendAndWait',
	to: '+91 98123 45678',
	messageType: 'session',
	message: 'Order ORD-1 is over the limit. Approve it?',
	responseType: 'approval',
	options: {},
};

const template = {
	resource: 'whatsapp',
	operation: 'sendAndWait',
	to: '+919812345678',
	messageType: 'template',
	templateName: 'approval_request',
	componentsInputMode: 'fields',
	components: {
		body: [
			{ index: 1, value: 'Asha' },
			{ index: 2, value: 'ORD-1' },
		],
	},
	responseType: 'approval',
	approvalOptions: { values: { approvalType: 'double' } },
	linkButton: 1,
	declineLinkButton: 2,
	options: {},
};

const { sendItem, expectSent, expectRefused } = operationHarness({
	prepare,
	baseUrl: 'https://api.example.com',
	path: '/v1/whatsapp/send',
	url: 'https://api.example.com/v1/whatsapp/send',
	jsonField: 'components',
	answer: {
		statusCode: 200,
		headers: {},
		body: { message_id: 'msg_1', status: 'sent', channel: 'whatsapp' },
	},
	acknowledgement: { message_id: 'msg_1', status: 'sent', channel: 'whatsapp' },
});

const sendCases: SendCase[] = [
	{
		title: 'session, approve only: the question, then the approve link after its default label',
		parameters: session,
		body: {
			to: '+919812345678',
			type: 'session',
			text: `Order ORD-1 is over the limit. Approve it?\n\n✓ Approve: ${approveLink}`,
		},
	},
	{
		title: 'session, approve and decline with own labels: one line per link',
		parameters: {
			...session,
			approvalOptions: {
				values: { approvalType: 'double', approveLabel: 'Yes', disapproveLabel: 'No' },
			},
		},
		body: {
			to: '+919812345678',
			type: 'session',
			text: `Order ORD-1 is over the limit. Approve it?\n\nYes: ${approveLink}\nNo: ${declineLink}`,
		},
	},
	{
		title:
			'session, free text: one link to the answer page, after Message Button Label; JSON body and a key',
		parameters: {
			...session,
			responseType: 'freeText',
			options: {
				messageButtonLabel: 'Write your answer',
				bodyEncoding: 'json',
				idempotencyKey: 'ORD-1-ask',
			},
		},
		encoding: 'json',
		idempotencyKey: 'ORD-1-ask',
		body: {
			to: '+919812345678',
			type: 'session',
			text: `Order ORD-1 is over the limit. Approve it?\n\nWrite your answer: ${approveLink}`,
		},
	},
	{
		title:
			'template, approve and decline: the body variables, and each link as a URL button suffix',
		parameters: template,
		body: {
			to: '+919812345678',
			type: 'template',
			template_name: 'approval_request',
			components: {
				body: { '1': 'Asha', '2': 'ORD-1' },
				buttons: { '1': approveSuffix, '2': declineSuffix },
			},
		},
	},
	{
		title: 'template, buttons swapped and a Button URL Prefix that takes the execution id too',
		parameters: {
			...template,
			linkButton: 2,
			declineLinkButton: 1,
			options: { buttonUrlPrefix: 'https://n8n.example.com/webhook-waiting/231/' },
		},
		body: {
			to: '+919812345678',
			type: 'template',
			template_name: 'approval_request',
			components: {
				body: { '1': 'Asha', '2': 'ORD-1' },
				buttons: { '1': declineLink.split('/231/')[1], '2': approveLink.split('/231/')[1] },
			},
		},
	},
	{
		title: 'template, free text from JSON components: one button, the answer page link',
		parameters: {
			...template,
			templateName: 'answer_request',
			responseType: 'freeText',
			approvalOptions: undefined,
			componentsInputMode: 'json',
			componentsJson: '{"body": {"1": "ORD-1"}}',
		},
		body: {
			to: '+919812345678',
			type: 'template',
			template_name: 'answer_request',
			components: { body: { '1': 'ORD-1' }, buttons: { '1': approveSuffix } },
		},
	},
];

describe('WhatsApp → Send and Wait for Response: what is sent', () => {
	test.each(sendCases)('$title', expectSent);

	test('the links are signed for this execution and node, and each answer has its own signature', async () => {
		const { request } = await sendItem(template);
		const { buttons } = JSON.parse(request.fields.components) as {
			buttons: Record<string, string>;
		};
		const approve = new URL(`https://n8n.example.com/webhook-waiting/${buttons['1']}`);
		const decline = new URL(`https://n8n.example.com/webhook-waiting/${buttons['2']}`);
		expect(approve.pathname).toBe('/webhook-waiting/231/messaging');
		expect(approve.searchParams.get('approved')).toBe('true');
		expect(decline.searchParams.get('approved')).toBe('false');
		expect(approve.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
		expect(approve.searchParams.get('signature')).not.toBe(decline.searchParams.get('signature'));
	});
});

const badCases: BadCase[] = [
	{
		title: 'a session without a message',
		parameters: { ...session, message: '  ' },
		itemIndex: 0,
		message: "Item 0: 'Message' is empty",
		description: 'Enter the question, e.g. Order 1234 is over the limit. Approve it?',
	},
	{
		title: 'a session message too long once the links are added',
		parameters: { ...session, message: 'x'.repeat(4000) },
		itemIndex: 0,
		message: `Item 0: 'Message' is ${4000 + 2 + '✓ Approve: '.length + approveLink.length} characters long with the answer links, more than the 4096 WhatsApp allows`,
		description: `Shorten the message by ${4000 + 2 + '✓ Approve: '.length + approveLink.length - 4096} characters or more.`,
	},
	{
		title: 'a template without a name',
		parameters: { ...template, templateName: '' },
		itemIndex: 0,
		message: "Item 0: 'Template Name' is empty",
		description: 'Enter a value, e.g. approval_request.',
	},
	{
		title: 'button values: the buttons carry the links',
		parameters: { ...template, components: { buttons: [{ index: 1, value: 'x' }] } },
		itemIndex: 0,
		message: "Item 0: 'Components' set button values, but the buttons carry the answer links",
		description:
			'Remove the button values; set Link Button Position (and Decline Link Button Position) instead.',
	},
	{
		title: 'approve and decline on the same button',
		parameters: { ...template, declineLinkButton: 1 },
		itemIndex: 0,
		message: "Item 0: 'Decline Link Button Position' is 1, the same button as the approve link",
		description: 'Enter another position (1 to 10) than the approve link.',
	},
	{
		title: 'a wait limit of 0',
		parameters: {
			...session,
			options: {
				limitWaitTime: {
					values: { limitType: 'afterTimeInterval', resumeAmount: 0, resumeUnit: 'hours' },
				},
			},
		},
		itemIndex: 0,
		message: "Item 0: 'Options > Limit Wait Time' has the amount 0, but it must be above 0",
		description: 'Set Options > Limit Wait Time > Amount to a number above 0, e.g. 45 minutes.',
	},
	{
		title: 'a wait limit already past',
		parameters: {
			...session,
			options: {
				limitWaitTime: {
					values: { limitType: 'atSpecifiedTime', maxDateAndTime: '2020-01-01T00:00:00Z' },
				},
			},
		},
		itemIndex: 0,
		message:
			"Item 0: 'Options > Limit Wait Time' ends at 2020-01-01T00:00:00.000Z, which is already past: nobody could answer",
		description:
			'Set Options > Limit Wait Time > Max Date and Time to a future date, e.g. 2026-12-01T18:00:00Z.',
	},
	{
		title: 'a wait limit that is not a date',
		parameters: {
			...session,
			options: {
				limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: 'tomorrow' } },
			},
		},
		itemIndex: 0,
		message: `Item 0: 'Options > Limit Wait Time' has a string "tomorrow" as Max Date and Time, not a date`,
		description:
			'Set Options > Limit Wait Time > Max Date and Time to a future date, e.g. 2026-12-01T18:00:00Z.',
	},
	{
		title: 'a Button URL Prefix the link does not start with',
		parameters: { ...template, options: { buttonUrlPrefix: 'https://wa.example.com/go/' } },
		itemIndex: 0,
		message: `Item 0: the answer link https://n8n.example.com/webhook-waiting/231/messaging does not start with 'Options > Button URL Prefix' "https://wa.example.com/go/"`,
		description:
			"Register the template's URL button as https://n8n.example.com/webhook-waiting/{{1}} and leave Button URL Prefix empty, or enter the start the link has.",
	},
	{
		title: 'a Button URL Prefix that is no URL',
		parameters: { ...template, options: { buttonUrlPrefix: 'webhook-waiting/' } },
		itemIndex: 0,
		message: `Item 0: 'Options > Button URL Prefix' "webhook-waiting/" is not an absolute URL`,
		description:
			"Enter the start of the template's button URL before {{1}}, e.g. https://n8n.example.com/webhook-waiting/.",
	},
	{
		title: 'a recipient without a country code, on the item it belongs to',
		parameters: { ...session, to: '98123 45678' },
		itemIndex: 0,
		message: `Item 0: 'To' "98123 45678" has no country code`,
		description:
			'Write the number with its country code, e.g. +919812345678, or set Options > Default Country Code (e.g. 91) to complete national numbers.',
	},
];

describe('WhatsApp → Send and Wait for Response: what is refused, with nothing sent', () => {
	test.each(badCases)('$title', expectRefused);
});
