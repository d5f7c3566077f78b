import { randomUUID } from 'node:crypto';

import { campaignMessagingNode, SMS_ENTITY_ID, SMS_TEMPLATE_ID } from '../../lib/campaign-nodes';

export type Sender =
	| { kind: 'messaging'; options: Record<string, unknown> }
	| { kind: 'httpRequest'; options: Record<string, unknown> };

/** The rows the campaign sends: `order_id` carries the run tag and the row, so the sandbox's count traces each item. */
function rowsCode(count: number, runTag: string): string {
	return `return Array.from({ length: ${count} }, (_, i) => ({ json: { phone: '+9198' + String(10000000 + i), name: 'Customer ' + i, orderId: '${runTag}-' + i } }));`;
}

/** What a user builds instead: n8n's HTTP Request node posting the same form fields with the key in a header. */
function httpRequestNode(baseUrl: string, apiKey: string, options: Record<string, unknown>) {
	return {
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			method: 'POST',
			url: `${baseUrl}/v1/sms/send`,
			sendHeaders: true,
			headerParameters: { parameters: [{ name: 'Authorization', value: `Bearer ${apiKey}` }] },
			sendBody: true,
			contentType: 'form-urlencoded',
			bodyParameters: {
				parameters: [
					{ name: 'to', value: '={{ $json.phone }}' },
					{ name: 'entity_id', value: SMS_ENTITY_ID },
					{ name: 'template_id', value: SMS_TEMPLATE_ID },
					{
						name: 'content',
						value:
							"={{ JSON.stringify({ customer_name: $json.name, order_id: $json.orderId, eta: '24 Nov' }) }}",
					},
				],
			},
			options,
		},
		// A user who wants the other rows sent when one fails sets this; the failed rows are then counted, not hidden.
		onError: 'continueRegularOutput',
	};
}

export function campaignWorkflow(
	id: string,
	runTag: string,
	count: number,
	sender: Sender,
	api: { baseUrl: string; apiKey: string },
) {
	const send =
		sender.kind === 'messaging'
			? campaignMessagingNode(sender.options)
			: httpRequestNode(api.baseUrl, api.apiKey, sender.options);
	return {
		id,
		name: `Bench ${runTag}`,
		nodes: [
			{
				id: randomUUID(),
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: randomUUID(),
				name: 'Rows',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: { jsCode: rowsCode(count, runTag) },
			},
			{ id: randomUUID(), name: 'Send', position: [440, 0], ...send },
		],
		connections: {
			Start: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
			Rows: { main: [[{ node: 'Send', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
		active: false,
	};
}
