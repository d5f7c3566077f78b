import { EXAMPLE_CREDENTIAL, MESSAGING_NODE_TYPE } from './examples';

export const SMS_ENTITY_ID = '1201159876543210123';
export const SMS_TEMPLATE_ID = '1207161111111111111';

/**
 * The Messaging node of a generated campaign: SMS → Send of the sandbox's seeded DLT template, one message per
 * item `{ phone, name, orderId }`. `order_id` carries the row, so what the sandbox accepted traces back to it.
 */
export function campaignMessagingNode(options: Record<string, unknown>) {
	return {
		type: MESSAGING_NODE_TYPE,
		typeVersion: 1,
		parameters: {
			resource: 'sms',
			operation: 'send',
			to: '={{ $json.phone }}',
			entityId: SMS_ENTITY_ID,
			templateId: SMS_TEMPLATE_ID,
			variablesInputMode: 'fields',
			variables: {
				variable: [
					{ name: 'customer_name', value: '={{ $json.name }}' },
					{ name: 'order_id', value: '={{ $json.orderId }}' },
					{ name: 'eta', value: '24 Nov' },
				],
			},
			options,
		},
		credentials: { messagingApi: EXAMPLE_CREDENTIAL },
	};
}
