import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { messagingApiCredentials, messagingNode, noOpNode } from '../../helpers/nodeFixtures';
import type { WorkflowJson } from '../../helpers/runWorkflow';

/** Orders → Messaging, with the Messaging node's parameters given whole, as a case describes them. */
export function messagingWorkflow(parameters: INodeParameters): WorkflowJson {
	return {
		name: 'Reliability',
		nodes: [
			noOpNode('Orders', { id: 'reliability-orders' }),
			messagingNode(parameters, {
				id: 'reliability-messaging',
				position: [220, 0],
				credentials: messagingApiCredentials(),
			}),
		],
		connections: { Orders: { main: [[{ node: 'Messaging', type: 'main', index: 0 }]] } },
	};
}

/** SMS send where every field reads the item, so one item of a batch can carry the bad value. */
export const smsFromItem: INodeParameters = {
	resource: 'sms',
	operation: 'send',
	to: '={{ $json.to }}',
	entityId: '={{ $json.entityId }}',
	templateId: '={{ $json.templateId }}',
	variablesInputMode: 'fields',
	variables: {
		variable: [
			{ name: '={{ $json.names[0] }}', value: '={{ $json.values[0] }}' },
			{ name: '={{ $json.names[1] }}', value: '={{ $json.values[1] }}' },
			{ name: '={{ $json.names[2] }}', value: '={{ $json.values[2] }}' },
		],
	},
	options: {
		callbackUrl: '={{ $json.callbackUrl }}',
		defaultCountryCode: '={{ $json.countryCode }}',
	},
};

export function smsItem(to: string, orderId: string): IDataObject {
	return {
		to,
		entityId: '1201159876543210123',
		templateId: '1207161111111111111',
		names: ['customer_name', 'order_id', 'eta'],
		values: ['Asha', orderId, 'Fri'],
		variablesMode: 'fields',
	};
}

/** WhatsApp send of the seeded `order_update` template (header 1, body 2, buttons 1), fields read from the item. */
export const whatsappTemplateFromItem: INodeParameters = {
	resource: 'whatsapp',
	operation: 'send',
	to: '={{ $json.to }}',
	messageType: '={{ $json.messageType }}',
	templateName: '={{ $json.templateName }}',
	componentsInputMode: 'fields',
	components: {
		header: [{ index: 1, value: '={{ $json.header }}' }],
		body: [
			{ index: '={{ $json.bodyPositions[0] }}', value: '={{ $json.body[0] }}' },
			{ index: '={{ $json.bodyPositions[1] }}', value: '={{ $json.body[1] }}' },
		],
		buttons: [{ index: 1, value: '={{ $json.button }}' }],
	},
	text: '={{ $json.text }}',
	options: { defaultCountryCode: '={{ $json.countryCode }}' },
};

export function whatsappTemplateItem(to: string, orderId: string): IDataObject {
	return {
		to,
		messageType: 'template',
		templateName: 'order_update',
		componentsMode: 'fields',
		header: `Order ${orderId}`,
		bodyPositions: [1, 2],
		body: ['Asha', '24 Nov'],
		button: `track-${orderId}`,
	};
}

/**
 * WhatsApp session message whose Message Type comes from an expression, so the template fields
 * stay in the parameters (hidden in the editor) and can reach the node with a value.
 */
export const whatsappSessionFromItem: INodeParameters = {
	resource: 'whatsapp',
	operation: 'send',
	to: '={{ $json.to }}',
	messageType: '={{ $json.messageType }}',
	templateName: '={{ $json.templateName }}',
	componentsInputMode: '={{ $json.componentsMode }}',
	componentsJson: '={{ $json.componentsJson }}',
	components: {},
	text: '={{ $json.text }}',
	options: { defaultCountryCode: '={{ $json.countryCode }}' },
};

export function whatsappSessionItem(to: string, orderId: string): IDataObject {
	return {
		to,
		messageType: 'session',
		componentsMode: 'fields',
		text: `Your order ${orderId} has shipped.`,
	};
}
