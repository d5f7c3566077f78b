import type { INodeProperties } from 'n8n-workflow';

import type { MessagingRequest } from '../../transport/messagingRequest';
import { issueToNodeError } from '../../validation/issueToNodeError';
import { whatsappFieldGuide, whatsappSendSchema } from '../../validation/whatsappSendSchema';
import type { WhatsappSendInput } from '../../validation/whatsappSendSchema';
import { componentFields } from '../common/componentFields';
import { messageTypeField } from '../common/messageTypeField';
import { sendOptionsCollection } from '../common/sendOptions';
import type { ItemParameters } from '../common/itemParameters';
import type { PreparedItem } from '../types';
import { recipientField } from '../common/recipientField';

const showOnlyForWhatsappSend = { resource: ['whatsapp'], operation: ['send'] };
const showOnlyForTemplate = { ...showOnlyForWhatsappSend, messageType: ['template'] };

export const description: INodeProperties[] = [
	recipientField('WhatsApp', showOnlyForWhatsappSend),
	messageTypeField(showOnlyForWhatsappSend, {
		session:
			'Free text reply; only allowed within 24 hours of the last message the recipient sent you',
		template:
			'An approved template; the only way to start a conversation or write after the 24-hour window',
		field:
			'Template messages start conversations; session messages reply inside an open 24-hour window',
	}),
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
	...componentFields(
		showOnlyForTemplate,
		['header', 'body', 'buttons'],
		'{"header": {"1": "Order 1234"}, "body": {"1": "Asha", "2": "24 Nov"}, "buttons": {"1": "track-1234"}}',
	),
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
		...parameters.readRowsOrJson(itemIndex, {
			mode: 'componentsInputMode',
			rows: 'components',
			json: 'componentsJson',
		}),
		text: parameters.read('text', itemIndex, ''),
		defaultCountryCode: parameters.readOption('defaultCountryCode', itemIndex),
	};
}

export function buildWhatsappRequest(input: WhatsappSendInput): MessagingRequest {
	if (input.type === 'session') {
		return {
			path: '/v1/whatsapp/send',
			fields: { to: input.to, type: 'session', text: input.text },
		};
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

export function prepare(parameters: ItemParameters, itemIndex: number): PreparedItem {
	const parsed = whatsappSendSchema.safeParse(readInput(parameters, itemIndex));
	if (!parsed.success)
		throw issueToNodeError(
			parameters.context.getNode(),
			parsed.error.issues,
			itemIndex,
			whatsappFieldGuide,
		);
	return { request: buildWhatsappRequest(parsed.data) };
}
