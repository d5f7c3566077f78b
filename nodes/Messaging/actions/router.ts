import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { readEndpoint } from '../transport/endpoint';
import { ItemParameters } from './common/itemParameters';
import { readBatchSettings, readSendSettings } from './common/sendSettings';
import { asNodeError, errorItem, messageForAgent, runsAsAgentTool } from './itemErrors';
import { agentWaitRefusal } from './toolMode';
import { sendAll, type IndexedSend, type PreparedSend } from './sendPrepared';
import { startSendOnce } from './sendOnce/sendOnce';
import * as sms from './sms';
import type { MessagingResource, OperationModule, PreparedItem } from './types';
import * as whatsapp from './whatsapp';

const operationsByResource: Record<MessagingResource, Record<string, OperationModule>> = {
	sms: sms.operations,
	whatsapp: whatsapp.operations,
};

/** Own keys only: a parameter value such as "toString" must not find an inherited property. */
function ownEntry<T>(table: Record<string, T>, key: string): T | undefined {
	return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** Each input item either goes on to be sent or has already failed (when the node continues on fail). */
type ItemOutcome =
	| { send: PreparedSend; wait?: PreparedItem['wait'] }
	| { failedItem: INodeExecutionData };

function resolveOperation(context: IExecuteFunctions): OperationModule {
	const resource = context.getNodeParameter('resource', 0) as string;
	const operation = context.getNodeParameter('operation', 0, '') as string;
	const operations = ownEntry(operationsByResource, resource) ?? {};
	const found = ownEntry(operations, operation);
	if (!found) {
		throw new NodeOperationError(
			context.getNode(),
			`The resource "${resource}" has no operation "${operation || '(none)'}"`,
			{
				description:
					'Choose SMS or WhatsApp as Resource, and Send (or, for WhatsApp, Send and Wait for Response) as Operation.',
			},
		);
	}
	return found;
}

function checkSingleItem(context: IExecuteFunctions, itemCount: number): void {
	if (itemCount <= 1) return;
	throw new NodeOperationError(
		context.getNode(),
		`Send and Wait for Response got ${itemCount} items, but it asks one person once per execution`,
		{
			description:
				"Turn on Settings > Execute Once to ask with the first item only, or ask each item's person in a sub-workflow (Execute Workflow node, one item per execution).",
		},
	);
}
function prepareAll(
	parameters: ItemParameters,
	{ prepare }: OperationModule,
	itemCount: number,
	continueOnFail: boolean,
): ItemOutcome[] {
	const { context } = parameters;
	return Array.from({ length: itemCount }, (_, itemIndex): ItemOutcome => {
		try {
			const { request, wait } = prepare(parameters, itemIndex);
			return { send: { request, settings: readSendSettings(parameters, itemIndex) }, wait };
		} catch (error) {
			const nodeError = asNodeError(context, error, itemIndex);
			if (!continueOnFail) throw nodeError;
			return { failedItem: errorItem(context, nodeError, itemIndex) };
		}
	});
}

/** The outcomes array is not kept: each prepared request can be dropped as soon as it is sent. */
function splitOutcomes(outcomes: ItemOutcome[]) {
	const failed = outcomes.map((outcome) =>
		'failedItem' in outcome ? outcome.failedItem : undefined,
	);
	const waits = outcomes.map((outcome) => ('wait' in outcome ? outcome.wait : undefined));
	const sends: IndexedSend[] = outcomes.flatMap((outcome, itemIndex) =>
		'send' in outcome ? [{ itemIndex, ...outcome.send }] : [],
	);
	return { failed, waits, sends };
}

/**
 * Its own frame: an async function keeps its locals while it waits, so the array of every prepared request, held
 * here, would outlive the sends that drop each request as it goes. Send once takes out what this node had
 * acknowledged before, as a skipped item in its slot.
 */
async function prepareSends(
	context: IExecuteFunctions,
	parameters: ItemParameters,
	operation: OperationModule,
	{ itemCount, continueOnFail }: { itemCount: number; continueOnFail: boolean },
) {
	const { failed, waits, sends } = splitOutcomes(
		prepareAll(parameters, operation, itemCount, continueOnFail),
	);
	const sendOnce = await startSendOnce(
		context,
		operation,
		parameters,
		{ sends, results: failed },
		continueOnFail,
	);
	return { failed, waits, sendOnce };
}

/** Every item is validated before any is sent, so a bad row never leaves half a batch delivered. */
async function routeItems(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const continueOnFail = this.continueOnFail();
	// An agent's tool reads its fields from the model, not from an input item.
	const parameters = new ItemParameters(this, !runsAsAgentTool(this));
	const operation = resolveOperation(this);
	const itemCount = this.getInputData().length;
	if (operation.singleItem) checkSingleItem(this, itemCount);
	const refusal = operation.waitsForAnswer ? agentWaitRefusal(this) : undefined;
	// An agent that runs its tools itself hands the model "" for a thrown error, but reads an item.
	if (refusal && this.isToolExecution()) return [[errorItem(this, refusal, 0)]];
	if (refusal) throw refusal;
	const { failed, waits, sendOnce } = await prepareSends(this, parameters, operation, {
		itemCount,
		continueOnFail,
	});
	const { sends } = sendOnce;
	let sent = new Map<number, INodeExecutionData>();
	try {
		if (sends.length > 0) {
			const run = {
				endpoint: await readEndpoint(this),
				batch: readBatchSettings(parameters),
				continueOnFail,
				onAcknowledged: sendOnce.acknowledged,
			};
			sent = await sendAll(this, sends, run);
		}
	} finally {
		await sendOnce.finish();
	}
	const output = failed.map((item, itemIndex) => item ?? sent.get(itemIndex)!);
	return operation.afterSend ? await operation.afterSend(this, output, waits) : [output];
}

/** As an agent's tool, a failure is the model's answer: n8n passes the message on and the workflow goes on. */
export async function route(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	if (!runsAsAgentTool(this)) return await routeItems.call(this);
	try {
		return await routeItems.call(this);
	} catch (error) {
		const nodeError = asNodeError(this, error, 0);
		nodeError.message = messageForAgent(nodeError);
		throw nodeError;
	}
}
