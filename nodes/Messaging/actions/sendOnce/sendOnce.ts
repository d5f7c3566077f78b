import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemParameters } from '../common/itemParameters';
import { readBatchSettings } from '../common/sendSettings';
import { asNodeError, errorItem, runsAsAgentTool } from '../itemErrors';
import type { IndexedSend } from '../sendPrepared';
import type { OperationModule } from '../types';
import { automaticIdempotencyKey, messageIdentity, numberOccurrences } from './messageIdentity';
import { nodeProcessedValues } from '../../../shared/processedValues';
import { SendOnceRecord } from './sendOnceRecord';

const HOUR_MS = 3_600_000;

export interface SendOnceRun {
	/** What is left to send, each with its provider key. */
	sends: IndexedSend[];
	acknowledged: (itemIndex: number) => void;
	/** Writes the acknowledgements still held and tells the execution what was skipped. */
	finish: () => Promise<void>;
}

function emptyKeyError(context: IExecuteFunctions, itemIndex: number): NodeOperationError {
	return new NodeOperationError(
		context.getNode(),
		`Item ${itemIndex}: 'Options > Idempotency Key' is empty for this item`,
		{
			itemIndex,
			description:
				'Its expression gave no text, so nothing would tell this message from another. Build it from a field every item has, e.g. {{ $json.orderId }}, or remove the option: the node then keys each message by its input item and its content.',
		},
	);
}

/** An Idempotency Key option that resolves to nothing is bad input: the item fails before anything is sent. */
function refuseEmptyKeys(
	context: IExecuteFunctions,
	sends: IndexedSend[],
	results: Array<INodeExecutionData | undefined>,
	continueOnFail: boolean,
): IndexedSend[] {
	const options = context.getNodeParameter('options', 0, {}, { rawExpressions: true }) as object;
	if (!('idempotencyKey' in options)) return sends;
	return sends.filter((send) => {
		if (send.settings.idempotencyKey) return true;
		const error = asNodeError(context, emptyKeyError(context, send.itemIndex), send.itemIndex);
		if (!continueOnFail) throw error;
		results[send.itemIndex] = errorItem(context, error, send.itemIndex);
		return false;
	});
}

function skippedItem(send: IndexedSend): INodeExecutionData {
	const channel = send.request.path === '/v1/sms/send' ? 'sms' : 'whatsapp';
	return {
		json: { message_id: null, status: 'skipped', channel, skipped: true },
		pairedItem: { item: send.itemIndex },
	};
}

function hintSkipped(context: IExecuteFunctions, skipped: number, total: number, windowMs: number) {
	if (skipped === 0) return;
	context.addExecutionHints({
		type: 'info',
		location: 'outputPane',
		message: `${skipped} of ${total} messages were not sent again: this node had them acknowledged within the last ${windowMs / HOUR_MS} hours. They are on the output with skipped: true (Options > Send Once Within).`,
	});
}

function hintRecordFailure(context: IExecuteFunctions, error: unknown) {
	context.addExecutionHints({
		type: 'warning',
		location: 'outputPane',
		message: `The messages were sent, but n8n could not record all of them (${error instanceof Error ? error.message : String(error)}): a re-run may send those again unless the provider honours Idempotency-Key.`,
	});
}

function plainRun(sends: IndexedSend[]): SendOnceRun {
	return { sends, acknowledged: () => undefined, finish: async () => undefined };
}

/**
 * Send once, by default: every send of a plain Send gets a provider key that survives a re-run, and with a saved
 * workflow the sends this node had acknowledged within the window are taken out and come out as skipped.
 */
export async function startSendOnce(
	context: IExecuteFunctions,
	operation: OperationModule,
	parameters: ItemParameters,
	input: { sends: IndexedSend[]; results: Array<INodeExecutionData | undefined> },
	continueOnFail: boolean,
): Promise<SendOnceRun> {
	const sends = refuseEmptyKeys(context, input.sends, input.results, continueOnFail);
	// An agent's call and a question waiting for its answer are new reasons each time.
	if (operation.waitsForAnswer || runsAsAgentTool(context)) return plainRun(sends);
	const windowMs = readBatchSettings(parameters).sendOnceHours * HOUR_MS;
	if (windowMs === 0 || sends.length === 0) return plainRun(sends);
	const items = context.getInputData();
	const identities = numberOccurrences(
		sends.map(({ request, settings, itemIndex }) =>
			messageIdentity({
				request,
				userKey: settings.idempotencyKey,
				inputItem: items[itemIndex]?.json ?? {},
			}),
		),
	);
	const workflowId = context.getWorkflow().id ?? '';
	const nodeId = context.getNode().id;
	for (const [position, send] of sends.entries()) {
		if (send.settings.idempotencyKey) continue;
		const key = automaticIdempotencyKey(workflowId, nodeId, identities[position]);
		send.settings = { ...send.settings, automaticIdempotencyKey: key };
	}
	// An unsaved workflow has no id for n8n's store to file the record under.
	if (!workflowId) return plainRun(sends);
	return await withRecord(context, { sends, identities, windowMs }, input.results);
}

async function withRecord(
	context: IExecuteFunctions,
	{ sends, identities, windowMs }: { sends: IndexedSend[]; identities: string[]; windowMs: number },
	results: Array<INodeExecutionData | undefined>,
): Promise<SendOnceRun> {
	const record = new SendOnceRecord(nodeProcessedValues(context), windowMs, sends.length);
	const sentBefore = await record.acknowledgedBefore(identities);
	const identityOf = new Map<number, string>();
	const left: IndexedSend[] = [];
	for (const [position, send] of sends.entries()) {
		if (sentBefore.has(identities[position])) results[send.itemIndex] = skippedItem(send);
		else {
			identityOf.set(send.itemIndex, identities[position]);
			left.push(send);
		}
	}
	// Counts, not the sends: a closure over them would keep every prepared request of the run until its end.
	const total = sends.length;
	const skipped = total - left.length;
	return {
		sends: left,
		acknowledged: (itemIndex) => {
			record.acknowledged(identityOf.get(itemIndex)!);
			identityOf.delete(itemIndex);
		},
		finish: async () => {
			const writeError = await record.finish();
			if (writeError) hintRecordFailure(context, writeError);
			hintSkipped(context, skipped, total, windowMs);
		},
	};
}
