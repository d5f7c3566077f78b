import { SMS_ENTITY_ID, SMS_TEMPLATE_ID } from '../lib/campaign-nodes';

export interface CampaignRow {
	phone: string;
	name: string;
	orderId: string;
	eta: string;
}

/**
 * One row per message. `orderId` carries the run tag and the row index, so every message the sandbox
 * accepts can be traced back to exactly one item (duplicates and losses are counted from it).
 */
export function campaignRows(count: number, runTag: string): CampaignRow[] {
	return Array.from({ length: count }, (_, index) => ({
		phone: `+9198${String(10_000_000 + index).padStart(8, '0')}`,
		name: `Customer ${index}`,
		orderId: `${runTag}-${index}`,
		eta: '24 Nov',
	}));
}

/** The form body every sender in the benchmark posts for a row, the same fields the Messaging node sends. */
export function smsFormBody(row: CampaignRow): string {
	return new URLSearchParams({
		to: row.phone,
		entity_id: SMS_ENTITY_ID,
		template_id: SMS_TEMPLATE_ID,
		content: JSON.stringify({ customer_name: row.name, order_id: row.orderId, eta: row.eta }),
	}).toString();
}
