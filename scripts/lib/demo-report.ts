import { firstOutputOf, listExecutions, readExecution, waitFor } from '../n8n/executions';
import type { N8nRestClient } from '../n8n/rest-client';
import { renderTable } from './demo-tables';
import { DELIVERY_REPORT_EXAMPLE_ID, triggerPathOf, type Example } from './examples';
import type { SandboxAdmin } from './sandbox-admin';

/** Enough messages to fill a few batches; the sandbox plays their events at 20 × the pace of a real campaign. */
const CAMPAIGN = { count: 200, channel: 'whatsapp', timeScale: 0.05, perSecond: 100, seed: 7 };
const REPORT_WAIT_MS = 90_000;

export interface DeliveryReport {
	events: number;
	executions: Array<{ id: string; events: number; perStatus: Record<string, number> }>;
}

/**
 * A WhatsApp campaign's status events (sent, delivered, read, a few failed), POSTed one per request by the sandbox
 * to the delivery report example's active trigger: n8n runs them in a few executions, each counting its batch.
 */
export async function runDeliveryReport(
	admin: SandboxAdmin,
	rest: N8nRestClient,
	n8nBaseUrl: string,
	examples: Example[],
): Promise<DeliveryReport | undefined> {
	const example = examples.find(
		(candidate) => candidate.workflow.id === DELIVERY_REPORT_EXAMPLE_ID,
	);
	if (!example) return undefined;
	const before = (await admin.webhookSummary()).delivered;
	const campaign = await admin.startCampaign({
		...CAMPAIGN,
		url: `${n8nBaseUrl}${triggerPathOf(example)}`,
	});
	await waitFor('the campaign events to reach n8n', REPORT_WAIT_MS, async () =>
		(await admin.webhookSummary()).delivered - before >= campaign.expectedEvents ? true : undefined,
	);
	const executions = await waitFor('the report executions to finish', REPORT_WAIT_MS, async () => {
		const listed = await listExecutions(rest, example.workflow.id);
		return listed.every((execution) => execution.status === 'success') ? listed : undefined;
	});
	const report: DeliveryReport = { events: campaign.expectedEvents, executions: [] };
	for (const { id } of executions) {
		const execution = await readExecution(rest, id);
		const perStatus: Record<string, number> = {};
		for (const row of firstOutputOf(execution, 'Count per status'))
			perStatus[String(row.status)] = Number(row.count_event_id);
		const events = Object.values(perStatus).reduce((sum, count) => sum + count, 0);
		report.executions.push({ id, events, perStatus });
	}
	return report;
}

export function reportTable(report: DeliveryReport): string {
	const statuses = ['sent', 'delivered', 'read', 'failed'];
	const rows = [...report.executions]
		.sort((a, b) => Number(a.id) - Number(b.id))
		.map((execution) => [
			execution.id,
			String(execution.events),
			...statuses.map((status) => String(execution.perStatus[status] ?? 0)),
		]);
	return renderTable(['execution', 'events', ...statuses], rows);
}

/** Every event of the campaign counted once over all executions. */
export function reportIsComplete(report: DeliveryReport): boolean {
	return report.executions.reduce((sum, execution) => sum + execution.events, 0) === report.events;
}
