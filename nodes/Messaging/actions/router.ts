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
import type { MessagingResource, OperationModule } from './types';
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
type ItemOutcome = { send: PreparedSend } | { failedItem: INodeExecutionData };

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
			return {
				send: {
					request: prepare(parameters, itemIndex),
					settings: readSendSettings(parameters, itemIndex),
				},
			};
		} catch (error) {
			const nodeError = asNodeError(context, error, itemIndex);
			if (!continueOnFail) throw nodeError;
			return { failedItem: errorItem(context, nodeError, itemIndex) };
		}
	});
}

/** The outcomes array is not kept: each prepared request can be dropped as soon as it is sent. */
function splitOutcomes(outcomes: ItemOutcome[]) {
	const results = outcomes.map((outcome) =>
		'failedItem' in outcome ? outcome.failedItem : undefined,
	);
	const sends: IndexedSend[] = outcomes.flatMap((outcome, itemIndex) =>
		'send' in outcome ? [{ itemIndex, ...outcome.send }] : [],
	);
	return { results, sends };
}

/** Every item is validated before any is sent, so a bad row never leaves half a batch delivered. */
async function routeItems(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const continueOnFail = this.continueOnFail();
	const parameters = new ItemParameters(this);
	const operation = resolveOperation(this);
	const itemCount = this.getInputData().length;
	if (operation.singleItem) checkSingleItem(this, itemCount);
	const refusal = operation.waitsForAnswer ? agentWaitRefusal(this) : undefined;
	// An agent that runs its tools itself hands the model "" for a thrown error, but reads an item.
	if (refusal && this.isToolExecution()) return [[errorItem(this, refusal, 0)]];
	if (refusal) throw refusal;
	const outcomes = splitOutcomes(prepareAll(parameters, operation, itemCount, continueOnFail));
	const { results } = outcomes;
	const sendOnce = await startSendOnce(this, operation, parameters, outcomes, continueOnFail);
	const { sends } = sendOnce;
	try {
		if (sends.length > 0) {
			const run = {
				endpoint: await readEndpoint(this),
				batch: readBatchSettings(parameters),
				continueOnFail,
				onAcknowledged: sendOnce.acknowledged,
			};
			await sendAll(this, sends, results, run);
		}
	} finally {
		await sendOnce.finish();
	}
	const output = results as INodeExecutionData[];
	return operation.afterSend ? await operation.afterSend(this, output) : [output];
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
