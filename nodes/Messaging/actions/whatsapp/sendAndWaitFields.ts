import type { INodeProperties } from 'n8n-workflow';

import { componentFields } from '../common/componentFields';
import { messageTypeField } from '../common/messageTypeField';
import { recipientField } from '../common/recipientField';
import { optionsCollection, sendOptions } from '../common/sendOptions';

const showForSendAndWait = { resource: ['whatsapp'], operation: ['sendAndWait'] };
const showForTemplate = { ...showForSendAndWait, messageType: ['template'] };

const approvalOptions: INodeProperties = {
	displayName: 'Approval Options',
	name: 'approvalOptions',
	type: 'fixedCollection',
	placeholder: 'Add Option',
	default: {},
	description: 'Approve only, or approve and decline, and the words of each link',
	displayOptions: { show: { ...showForSendAndWait, responseType: ['approval'] } },
	options: [
		{
			displayName: 'Values',
			name: 'values',
			values: [
				{
					displayName: 'Type of Approval',
					name: 'approvalType',
					type: 'options',
					default: 'single',
					description: 'Whether the person can only approve, or approve or decline',
					options: [
						{ name: 'Approve Only', value: 'single' },
						{ name: 'Approve and Decline', value: 'double' },
					],
				},
				{
					displayName: 'Approve Button Label',
					name: 'approveLabel',
					type: 'string',
					default: '✓ Approve',
					description:
						'The approve button on the page the link opens, and (session) the words before the approve link',
				},
				{
					displayName: 'Decline Button Label',
					name: 'disapproveLabel',
					type: 'string',
					default: '✗ Decline',
					description:
						'The decline button on the page the link opens, and (session) the words before the decline link',
					displayOptions: { show: { approvalType: ['double'] } },
				},
			],
		},
	],
};

function buttonPosition(
	name: string,
	displayName: string,
	fallback: number,
	description: string,
	show: object,
) {
	return {
		displayName,
		name,
		type: 'number',
		default: fallback,
		typeOptions: { minValue: 1, maxValue: 10 },
		description,
		displayOptions: { show: { ...showForTemplate, ...show } },
	} as INodeProperties;
}

/** n8n's own Limit Wait Time shape (`options.limitWaitTime.values`), so it reads as in n8n's WhatsApp and Slack nodes. */
const limitWaitTimeOption: INodeProperties = {
	displayName: 'Limit Wait Time',
	name: 'limitWaitTime',
	type: 'fixedCollection',
	description:
		'How long to wait for an answer. When the time is up the execution continues with an item whose "answered" is false.',
	default: { values: { limitType: 'afterTimeInterval', resumeAmount: 45, resumeUnit: 'minutes' } },
	options: [
		{
			displayName: 'Values',
			name: 'values',
			values: [
				{
					displayName: 'Limit Type',
					name: 'limitType',
					type: 'options',
					default: 'afterTimeInterval',
					description: 'Stop waiting after a time interval, or at a date and time',
					options: [
						{
							name: 'After Time Interval',
							value: 'afterTimeInterval',
							description: 'Waits for a certain amount of time',
						},
						{
							name: 'At Specified Time',
							value: 'atSpecifiedTime',
							description: 'Waits until the set date and time',
						},
					],
				},
				{
					displayName: 'Amount',
					name: 'resumeAmount',
					type: 'number',
					default: 1,
					typeOptions: { minValue: 0, numberPrecision: 2 },
					description: 'The time to wait',
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
				},
				{
					displayName: 'Unit',
					name: 'resumeUnit',
					type: 'options',
					default: 'hours',
					description: 'Unit of the amount',
					options: [
						{ name: 'Minutes', value: 'minutes' },
						{ name: 'Hours', value: 'hours' },
						{ name: 'Days', value: 'days' },
					],
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
				},
				{
					displayName: 'Max Date and Time',
					name: 'maxDateAndTime',
					type: 'dateTime',
					default: '',
					description: 'Continue without an answer at this date and time',
					displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
				},
			],
		},
	],
};

const buttonUrlPrefixOption: INodeProperties = {
	displayName: 'Button URL Prefix',
	name: 'buttonUrlPrefix',
	type: 'string',
	default: '',
	placeholder: 'e.g. https://n8n.example.com/webhook-waiting/',
	description:
		"Template only: the fixed start of the template's URL button, before its {{1}}. The node sends the rest of the link as the button's dynamic suffix. Leave it empty when the button URL is your n8n URL followed by /webhook-waiting/{{1}}.",
};

const freeTextOptions: INodeProperties[] = [
	{
		displayName: 'Message Button Label',
		name: 'messageButtonLabel',
		type: 'string',
		default: 'Respond',
		description: 'Session only: the words before the link to the answer form',
	},
	{
		displayName: 'Response Form Button Label',
		name: 'responseFormButtonLabel',
		type: 'string',
		default: 'Submit',
		description: 'Label of the button that sends the answer',
	},
];

/** The page an answer link opens, for both response types: it shows the question and the way to answer. */
const answerPageOptions: INodeProperties[] = [
	{
		displayName: 'Response Form Description',
		name: 'responseFormDescription',
		type: 'string',
		default: '',
		description:
			'The question on the page the link opens; empty shows the message (session) or nothing (template)',
	},
	{
		displayName: 'Response Form Title',
		name: 'responseFormTitle',
		type: 'string',
		default: '',
		description: 'Title of the page the link opens, where the person answers',
	},
];

/** The options that make sense for one message: no batch throughput knobs. */
const sharedOptions = [
	...answerPageOptions,
	buttonUrlPrefixOption,
	limitWaitTimeOption,
	...sendOptions.filter((option) =>
		['bodyEncoding', 'defaultCountryCode', 'idempotencyKey', 'timeout'].includes(option.name),
	),
];

/** One collection per response type: Free Text adds its own labels. */
function answerOptions(responseType: string, options: INodeProperties[]): INodeProperties {
	return optionsCollection(
		'How long to wait, the answer page, and how the message is sent',
		{ resource: ['whatsapp'], operation: ['sendAndWait'], responseType: [responseType] },
		options,
	);
}

const sendAndWaitOptions: INodeProperties[] = [
	answerOptions('approval', sharedOptions),
	answerOptions('freeText', [...sharedOptions, ...freeTextOptions]),
];

/** What the person is asked and how they answer, then the options: how long to wait, the page, the send. */
export const sendAndWaitFields: INodeProperties[] = [
	recipientField('WhatsApp', showForSendAndWait),
	messageTypeField(showForSendAndWait, {
		session:
			'Your text with the links below it; only within 24 hours of the last message the recipient sent you',
		template: 'An approved template whose URL buttons carry the links; works at any time',
		field: 'A session text inside the 24-hour window, or a template with URL buttons at any time',
	}),
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		required: true,
		default: '',
		typeOptions: { rows: 4 },
		placeholder: 'e.g. Order 1234 is over the limit. Approve it?',
		description:
			'The question; the node adds the answer links below it (up to 4096 characters in all)',
		displayOptions: { show: { ...showForSendAndWait, messageType: ['session'] } },
	},
	{
		displayName: 'Template Name',
		name: 'templateName',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. approval_request',
		description:
			'An approved template with a URL button (two for Approve and Decline) whose URL ends in {{1}}',
		displayOptions: { show: showForTemplate },
	},
	...componentFields(
		showForTemplate,
		['header', 'body'],
		'{"body": {"1": "Asha", "2": "Order 1234"}}',
	),
	{
		displayName: 'Response Type',
		name: 'responseType',
		type: 'options',
		noDataExpression: true,
		default: 'approval',
		options: [
			{
				name: 'Approval',
				value: 'approval',
				description: 'The person approves (or declines) by opening a link',
			},
			{
				name: 'Free Text',
				value: 'freeText',
				description: 'The person writes an answer on a page the link opens',
			},
		],
		description: 'How the person answers',
		displayOptions: { show: showForSendAndWait },
	},
	approvalOptions,
	buttonPosition(
		'linkButton',
		'Link Button Position',
		1,
		"Position of the template's URL button that carries the approve link (Approval) or the answer page link (Free Text)",
		{},
	),
	buttonPosition(
		'declineLinkButton',
		'Decline Link Button Position',
		2,
		"Position of the template's URL button that carries the decline link, used with Approve and Decline",
		{ responseType: ['approval'] },
	),
	...sendAndWaitOptions,
];
