import type { INodeProperties } from 'n8n-workflow';

import { optionsCollection, sendOptions } from '../common/sendOptions';

/** n8n's own Limit Wait Time shape (`options.limitWaitTime.values`), so it reads as in n8n's WhatsApp and Slack nodes. */
export const limitWaitTimeOption: INodeProperties = {
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

export const sendAndWaitOptions: INodeProperties[] = [
	answerOptions('approval', sharedOptions),
	answerOptions('freeText', [...sharedOptions, ...freeTextOptions]),
];
