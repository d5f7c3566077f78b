import type { INodeProperties, INodePropertyCollection } from 'n8n-workflow';

import type { MessagingRequest } from '../../transport/messagingRequest';
import { issueToNodeError } from '../../validation/issueToNodeError';
import { whatsappFieldGuide, whatsappSendSchema } from '../../validation/whatsappSendSchema';
import type { WhatsappSendInput } from '../../validation/whatsappSendSchema';
import { inputModeSelector } from '../common/inputModeSelector';
import { sendOptionsCollection } from '../common/sendOptions';
import type { ItemParameters } from '../common/itemParameters';
import { recipientField } from '../common/recipientField';

const showOnlyForWhatsappSend = { resource: ['whatsapp'], operation: ['send'] };
const showOnlyForTemplate = { ...showOnlyForWhatsappSend, messageType: ['template'] };

function componentRows(section: string, displayName: string, valueHint: string): INodePropertyCollection {
	return {
		displayName,
		name: section,
		values: [
			{
				displayName: 'Position',
				name: 'index',
				type: 'number',
				default: 1,
				typeOptions: { minValue: 1 },
				description: `Position of the variable in the template ${section}: 1 for {{1}}, 2 for {{2}}, and so on`,
			},
			{
				displayName: 'Value',
				name: 'value',
				type: 'string',
				default: '',
				placeholder: valueHint,
				description: 'Text or number to put in that position',
			},
		],
	};
}

export const description: INodeProperties[] = [
	recipientField('WhatsApp', showOnlyForWhatsappSend),
	{
		displayName: 'Message Type',
		name: 'messageType',
		type: 'options',
		default: 'template',
		options: [
			{
				name: 'Session',
				value: 'session',
				description: 'Free text reply; only allowed within 24 hours of the last message the recipient sent you',
			},
			{
				name: 'Template',
				value: 'template',
				description: 'An approved template; the only way to start a conversation or write after the 24-hour window',
			},
		],
		description: 'Template messages start conversations; session messages reply inside an open 24-hour window',
		displayOptions: { show: showOnlyForWhatsappSend },
	},
	{
		displayName: 'Template Name',
		name: 'templateName',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. order_update',
		description: 'Name of the approved WhatsApp template to send',
		displayOptions: { show: showOnlyForTemplate },
	},
	inputModeSelector({
		displayName: 'Components Input',
		name: 'componentsInputMode',
		description: 'How to provide the values for the template variables',
		rowsDescription: 'Enter header, body and button values as rows',
		jsonDescription: 'Give all components as one JSON object, e.g. from an expression',
		show: showOnlyForTemplate,
	}),
	{
		displayName: 'Components',
		name: 'components',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Component Value',
		default: {},
		description:
			'Values for the template variables, by section and position. Leave empty for templates without variables.',
		displayOptions: { show: { ...showOnlyForTemplate, componentsInputMode: ['fields'] } },
		options: [
			componentRows('body', 'Body Variable', 'e.g. Asha'),
			componentRows('buttons', 'Button Payload', 'e.g. track-1234'),
			componentRows('header', 'Header Variable', 'e.g. Order 1234'),
		],
	},
	{
		displayName: 'Components (JSON)',
		name: 'componentsJson',
		type: 'json',
		default: '{}',
		placeholder:
			'e.g. {"header": {"1": "Order 1234"}, "body": {"1": "Asha", "2": "24 Nov"}, "buttons": {"1": "track-1234"}}',
		description:
			'A JSON object with optional "header", "body" and "buttons" keys, each mapping positions "1", "2", … to text or number values',
		displayOptions: { show: { ...showOnlyForTemplate, componentsInputMode: ['json'] } },
	},
	{
		displayName: 'Text',
		name: 'text',
		type: 'string',
		required: true,
		default: '',
		typeOptions: { rows: 4 },
		placeholder: 'e.g. Thanks, your order has shipped.',
		description: 'The message text (up to 4096 characters)',
		displayOptions: { show: { ...showOnlyForWhatsappSend, messageType: ['session'] } },
	},
	sendOptionsCollection('whatsapp'),
];

function readInput(parameters: ItemParameters, itemIndex: number): Record<string, unknown> {
	return {
		to: parameters.read('to', itemIndex, ''),
		messageType: parameters.read('messageType', itemIndex, 'template'),
		templateName: parameters.read('templateName', itemIndex, ''),
		...parameters.readRowsOrJson(itemIndex, { mode: 'componentsInputMode', rows: 'components', json: 'componentsJson' }),
		text: parameters.read('text', itemIndex, ''),
		defaultCountryCode: parameters.readOption('defaultCountryCode', itemIndex),
	};
}

export function buildWhatsappRequest(input: WhatsappSendInput): MessagingRequest {
	if (input.type === 'session') {
		return { path: '/v1/whatsapp/send', fields: { to: input.to, type: 'session', text: input.text } };
	}
	return {
		path: '/v1/whatsapp/send',
		fields: {
			to: input.to,
			type: 'template',
			template_name: input.templateName,
			...(input.components ? { components: JSON.stringify(input.components) } : {}),
		},
	};
}

export function prepare(parameters: ItemParameters, itemIndex: number): MessagingRequest {
	const parsed = whatsappSendSchema.safeParse(readInput(parameters, itemIndex));
	if (!parsed.success) throw issueToNodeError(parameters.context.getNode(), parsed.error.issues, itemIndex, whatsappFieldGuide);
	return buildWhatsappRequest(parsed.data);
}
