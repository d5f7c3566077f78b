import type { INodeExecutionData, WorkflowExecuteMode } from 'n8n-workflow';

/** What the gate reads of a webhook or execute context: both name the workflow, the node and the mode alike. */
export interface GateContext {
	getWorkflow(): { id?: string };
	getNode(): { id: string };
	getMode(): WorkflowExecuteMode;
}

/**
 * n8n stores an execution and starts it before it saves the trigger's static data, which holds the ids of the
 * events the execution carries. A process killed in between ran those events while their ids were never saved, and
 * the sender's retries would run them again. So in the process that received them, the execution holds its events
 * until n8n has answered their delivery (it answers only after the save): 2xx, it passes them on; otherwise every
 * delivery of them was refused and its retries carry them, so it passes none.
 *
 * Another process (a queue-mode worker) finds no gate here and passes the events on at once.
 */
const gates = new Map<string, Promise<boolean>>();
/** A gate no execution took (n8n never created it, or the trigger had pinned data) is dropped past this many. */
export const MAX_GATES = 1_000;

export function workflowIdOf(context: Pick<GateContext, 'getWorkflow'>): string {
	return context.getWorkflow().id ?? '';
}

function gateKey(context: GateContext, firstEventId: unknown): string | undefined {
	if (context.getMode() === 'manual' || typeof firstEventId !== 'string') return undefined;
	return `${workflowIdOf(context)}/${context.getNode().id}/${firstEventId}`;
}

/**
 * Holds the production execution whose first event is `firstEventId` until `answered` says how n8n answered its
 * delivery. A test event is not held: nothing retries it.
 */
export function holdExecution(
	context: GateContext,
	firstEventId: string,
	answered: Promise<boolean>,
): void {
	const key = gateKey(context, firstEventId);
	if (key === undefined) return;
	gates.set(key, answered);
	if (gates.size > MAX_GATES) gates.delete(gates.keys().next().value as string);
}

/** The trigger's items once their delivery was answered: all of them after a 2xx, none after a refusal. */
export async function itemsOnceAnswered(
	context: GateContext,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const key = gateKey(context, items[0]?.json.event_id);
	const answered = key === undefined ? undefined : gates.get(key);
	if (key === undefined || answered === undefined) return items;
	gates.delete(key);
	return (await answered) ? items : [];
}

export function heldExecutions(): number {
	return gates.size;
}
