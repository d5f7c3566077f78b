import { SANDBOX_API_KEY } from '../../scripts/lib/sandbox-server';

/** Trigger URL of the delivery-events example (its webhookId), as the SMS example's callback URL names it. */
export const DELIVERY_EVENTS_PATH =
	'/webhook/5e0b8d2c-7f3a-4c1e-9b6d-2a4f8c0e1d37/messaging-events';
export const DELIVERY_EVENTS_WORKFLOW_ID = 'exSmsDelivEvts01';

export interface ExpectedSend {
	workflowId: string;
	messagingNode: string;
	path: string;
	channel: 'sms' | 'whatsapp';
	status: 'queued' | 'sent';
	/** Plain fields as the sandbox must receive them. */
	fields: Record<string, string>;
	/** Fields carried as JSON-encoded text, compared after parsing. */
	jsonFields: Record<string, unknown>;
}

export const AUTHORIZATION = `Bearer ${SANDBOX_API_KEY}`;

/**
 * What each example with a manual trigger must send when `n8n execute` runs it (docs/architecture.md "Wire
 * format"): the sample phone `+91 98123 45678` normalised to E.164, expressions resolved, objects JSON-encoded.
 * The inbound-reply example starts from the Messaging Trigger instead: inbound-messages.e2e.ts runs it.
 */
export function expectedSends(n8nOrigin: string): ExpectedSend[] {
	return [
		{
			workflowId: 'exSmsOrderDlt001',
			messagingNode: 'Send shipping SMS',
			path: '/v1/sms/send',
			channel: 'sms',
			status: 'queued',
			fields: {
				to: '+919812345678',
				entity_id: '1201159876543210123',
				template_id: '1207161111111111111',
				callback_url: `${n8nOrigin}${DELIVERY_EVENTS_PATH}`,
			},
			jsonFields: { content: { customer_name: 'Asha', order_id: 'ORD-1234', eta: '24 Nov' } },
		},
		{
			workflowId: 'exWaLeadFollow01',
			messagingNode: 'Send lead follow-up',
			path: '/v1/whatsapp/send',
			channel: 'whatsapp',
			status: 'sent',
			fields: { to: '+919812345678', type: 'template', template_name: 'lead_followup' },
			jsonFields: {
				components: {
					body: { 1: 'Asha', 2: 'the 2BHK at Lakeview' },
					buttons: { 1: 'book-visit-L-1042' },
				},
			},
		},
	];
}

/** The node names of the two trigger examples, as the trigger checks read their runs. */
export const DELIVERY_EVENTS_NODES = {
	trigger: 'SMS status changed',
	delivered: 'Mark delivered in your CRM',
	failed: 'Alert the team (failed or undelivered)',
};
export const INBOUND_REPLY_NODES = {
	trigger: 'WhatsApp message received',
	sessionReply: 'Reply in the open session',
	templateReply: 'Reply with a template',
};
