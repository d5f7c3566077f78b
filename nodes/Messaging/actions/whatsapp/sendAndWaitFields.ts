import type { INodeProperties } from 'n8n-workflow';

import { componentFields } from '../common/componentFields';
import { messageTypeField } from '../common/messageTypeField';
import { recipientField } from '../common/recipientField';
import { sendAndWaitOptions } from './sendAndWaitOptions';

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
