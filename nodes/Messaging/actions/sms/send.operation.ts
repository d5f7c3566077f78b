import type { INodeProperties } from 'n8n-workflow';

import type { MessagingRequest } from '../../transport/messagingRequest';
import { issueToNodeError } from '../../validation/issueToNodeError';
import { smsFieldGuide } from '../../validation/smsSendSchema';
import type { SmsSendInput } from '../../validation/smsSendSchema';
import { parseSmsSend } from '../../validation/smsSendPlain';
import { inputModeSelector } from '../common/inputModeSelector';
import { callbackUrlOption, sendOptionsCollection } from '../common/sendOptions';
import type { ItemParameters } from '../common/itemParameters';
import type { PreparedItem } from '../types';
import { recipientField } from '../common/recipientField';

const showOnlyForSmsSend = { resource: ['sms'], operation: ['send'] };

export const description: INodeProperties[] = [
	recipientField('mobile', showOnlyForSmsSend),
	{
		displayName: 'DLT Entity ID',
		name: 'entityId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 1201159876543210123',
		description:
			'Your Principal Entity ID registered on the DLT platform (the regulatory SMS template registry)',
		displayOptions: { show: showOnlyForSmsSend },
	},
	{
		displayName: 'DLT Template ID',
		name: 'templateId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 1207161111111111111',
		description: 'ID of the approved DLT content template this message uses',
		displayOptions: { show: showOnlyForSmsSend },
	},
	inputModeSelector({
		displayName: 'Template Variables Input',
		name: 'variablesInputMode',
		description: 'How to provide the values of the variables declared in the DLT template',
		rowsDescription: 'Enter each variable as a name/value row',
		jsonDescription: 'Give all variables as one JSON object, e.g. from an expression',
		show: showOnlyForSmsSend,
	}),
	{
		displayName: 'Template Variables',
		name: 'variables',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Variable',
		default: {},
		description: 'The values for the variables declared in the DLT template, one row per variable',
		displayOptions: { show: { ...showOnlyForSmsSend, variablesInputMode: ['fields'] } },
		options: [
			{
				displayName: 'Variable',
				name: 'variable',
				values: [
					{
						displayName: 'Name',
						name: 'name',
						type: 'string',
						default: '',
						placeholder: 'e.g. customer_name',
						description: 'Variable name exactly as declared in the DLT template',
					},
					{
						displayName: 'Value',
						name: 'value',
						type: 'string',
						default: '',
						placeholder: 'e.g. Asha',
						description: 'Text or number to put in place of the variable',
					},
				],
			},
		],
	},
	{
		displayName: 'Template Variables (JSON)',
		name: 'variablesJson',
		type: 'json',
		default: '{}',
		placeholder: 'e.g. {"customer_name": "Asha", "order_id": "1234"}',
		description: 'A flat JSON object mapping each template variable name to a text or number value',
		displayOptions: { show: { ...showOnlyForSmsSend, variablesInputMode: ['json'] } },
	},
	sendOptionsCollection('sms', [callbackUrlOption]),
];

function readInput(parameters: ItemParameters, itemIndex: number): Record<string, unknown> {
	return {
		to: parameters.read('to', itemIndex, ''),
		entityId: parameters.read('entityId', itemIndex, ''),
		templateId: parameters.read('templateId', itemIndex, ''),
		...parameters.readRowsOrJson(itemIndex, {
			mode: 'variablesInputMode',
			rows: 'variables',
			json: 'variablesJson',
		}),
		callbackUrl: parameters.readOption('callbackUrl', itemIndex),
		defaultCountryCode: parameters.readOption('defaultCountryCode', itemIndex),
	};
}

export function buildSmsRequest(input: SmsSendInput): MessagingRequest {
	return {
		path: '/v1/sms/send',
		fields: {
			to: input.to,
			entity_id: input.entityId,
			template_id: input.templateId,
			content: JSON.stringify(input.content),
			...(input.callbackUrl ? { callback_url: input.callbackUrl } : {}),
		},
	};
}

export function prepare(parameters: ItemParameters, itemIndex: number): PreparedItem {
	const parsed = parseSmsSend(readInput(parameters, itemIndex));
	if (!parsed.success)
		throw issueToNodeError(
			parameters.context.getNode(),
			parsed.error.issues,
			itemIndex,
			smsFieldGuide,
		);
	return { request: buildSmsRequest(parsed.data) };
}
