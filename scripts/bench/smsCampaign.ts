import type { INodeExecutionData } from 'n8n-workflow';

import { loadWorkflowFixture, runWorkflow } from '../../test/helpers/runWorkflow';

export const SMS_ENTITY_ID = '1201159876543210123';
export const SMS_TEMPLATE_ID = '1207161111111111111';

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

export interface NodeRunOutcome {
	wallMs: number;
	delivered: number;
	failed: number;
	firstError?: string;
}

export interface NodeRunSettings {
	baseUrl: string;
	apiKey: string;
	options: Record<string, unknown>;
}

/** Sends the rows through the Messaging node in a real workflow run (n8n-core's WorkflowExecute). */
export async function sendThroughNode(rows: CampaignRow[], settings: NodeRunSettings): Promise<NodeRunOutcome> {
	const items: INodeExecutionData[] = rows.map((row) => ({ json: { ...row } }));
	const started = performance.now();
	const { outputs, error } = await runWorkflow({
		workflow: loadWorkflowFixture('sms-send'),
		credentials: { baseUrl: settings.baseUrl, apiKey: settings.apiKey },
		items,
		parameters: { Messaging: { options: settings.options } },
		continueOnFail: true,
	});
	const wallMs = performance.now() - started;
	if (error) throw new Error(`The workflow run failed: ${error.message}`);
	const output = outputs.Messaging ?? [];
	const failedItems = output.filter((item) => item.json.error !== undefined);
	return {
		wallMs,
		delivered: output.length - failedItems.length,
		failed: failedItems.length + Math.max(0, rows.length - output.length),
		...(failedItems.length > 0 ? { firstError: String(failedItems[0].json.error) } : {}),
	};
}
