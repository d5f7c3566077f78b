import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';

import { createSystemClock, type Clock } from '../throughput/clock';
import { forEachWithConcurrency } from '../throughput/pool';
import { AdaptiveSendRateLimiter } from '../throughput/rateLimiter';
import { sendWithRetries } from '../throughput/retryPolicy';
import { classifyMessagingFailure, withTriesMade } from '../transport/messagingApiError';
import type { MessagingRequest, SendSettings } from '../transport/messagingRequest';
import { sendMessagingRequest } from '../transport/sendMessagingRequest';
import { readEndpoint, type MessagingEndpoint } from '../transport/endpoint';
import { ItemParameters } from './common/itemParameters';
import { readBatchSettings, readSendSettings, type BatchSettings } from './common/sendSettings';
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

interface PreparedSend {
	request: MessagingRequest;
	settings: SendSettings;
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
function asNodeError(
	context: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeOperationError | NodeApiError {
	if (error instanceof NodeOperationError || error instanceof NodeApiError) return error;
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}

/**
 * n8n moves an item to the error output only when its json has no keys but `error`, `message` and `details`
 * (an item-level `error` would work too, but n8n then cuts its json down to the message alone). So with the
 * error output the facts go under `details`, and n8n adds the input item's fields beside them.
 */
function errorItem(
	context: IExecuteFunctions,
	error: NodeOperationError | NodeApiError,
	itemIndex: number,
): INodeExecutionData {
	const facts: JsonObject = {};
	if (typeof error.description === 'string' && error.description)
		facts.description = error.description;
	if (error instanceof NodeApiError && error.httpCode) facts.httpCode = error.httpCode;
	const toErrorOutput = context.getNode().onError === 'continueErrorOutput';
	const json: JsonObject = toErrorOutput
		? { error: error.message, details: facts }
		: { error: error.message, ...facts };
	return { json, pairedItem: { item: itemIndex } };
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

interface SendRun {
	endpoint: MessagingEndpoint;
	batch: BatchSettings;
	continueOnFail: boolean;
}

interface IndexedSend extends PreparedSend {
	itemIndex: number;
}

/** The outcomes array is not kept: each prepared request can be dropped as soon as it is sent. */
function splitOutcomes(outcomes: ItemOutcome[]) {
	const results = outcomes.map((outcome) =>
		'failedItem' in outcome ? outcome.failedItem : undefined,
	);
	const sends: Array<IndexedSend | undefined> = outcomes.flatMap((outcome, itemIndex) =>
		'send' in outcome ? [{ itemIndex, ...outcome.send }] : [],
	);
	return { results, sends };
}

type SendResult = { item: INodeExecutionData } | { error: NodeOperationError | NodeApiError };

async function sendOne(
	context: IExecuteFunctions,
	{ itemIndex, request, settings }: IndexedSend,
	{ endpoint, batch }: SendRun,
	limiter: AdaptiveSendRateLimiter,
	clock: Clock,
): Promise<SendResult> {
	const idempotent = Boolean(settings.idempotencyKey);
	const isThrottled = (error: unknown) => classifyMessagingFailure(error).kind === 'rate_limited';
	const outcome = await sendWithRetries(
		async (tryNumber) =>
			await limiter.send(
				tryNumber > 1 ? 'retry' : 'first',
				async () =>
					await sendMessagingRequest.call(
						context,
						endpoint,
						request,
						settings,
						itemIndex,
						(budget) => limiter.recordProviderBudget(budget),
					),
				isThrottled,
			),
		classifyMessagingFailure,
		{ maxTries: batch.maxTries429, idempotent },
		clock,
	);
	if (outcome.ok) {
		const [item] = context.helpers.constructExecutionMetaData(
			context.helpers.returnJsonArray(outcome.value),
			{
				itemData: { item: itemIndex },
			},
		);
		return { item };
	}
	const failureContext = {
		timeoutMs: settings.timeoutMs,
		triesMade: outcome.triesMade,
		apiKey: endpoint.apiKey,
		idempotent,
	};
	return {
		error: asNodeError(
			context,
			withTriesMade(outcome.error, context.getNode(), itemIndex, failureContext),
			itemIndex,
		),
	};
}

/**
 * Sends at most Max Concurrent Requests at a time, paced by one limiter, and writes each result into its input
 * slot, so order and pairing hold whatever finishes first. Without continue-on-fail the first failure stops
 * further sends and is thrown.
 */
async function sendAll(
	context: IExecuteFunctions,
	sends: Array<IndexedSend | undefined>,
	results: Array<INodeExecutionData | undefined>,
	run: SendRun,
): Promise<void> {
	const clock = createSystemClock();
	const limiter = new AdaptiveSendRateLimiter({ maxPerSecond: run.batch.maxPerSecond }, clock);
	let stopError: { error: unknown } | undefined;
	await forEachWithConcurrency(
		sends.length,
		run.batch.maxConcurrency,
		async (position) => {
			const send = sends[position]!;
			sends[position] = undefined;
			const result = await sendOne(context, send, run, limiter, clock);
			if ('item' in result) results[send.itemIndex] = result.item;
			else if (run.continueOnFail)
				results[send.itemIndex] = errorItem(context, result.error, send.itemIndex);
			else stopError ??= { error: result.error };
		},
		() => stopError === undefined,
	);
	if (stopError) throw stopError.error;
}

/** Every item is validated before any is sent, so a bad row never leaves half a batch delivered. */
export async function route(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const continueOnFail = this.continueOnFail();
	const parameters = new ItemParameters(this);
	const operation = resolveOperation(this);
	const itemCount = this.getInputData().length;
	if (operation.singleItem) checkSingleItem(this, itemCount);
	const { results, sends } = splitOutcomes(
		prepareAll(parameters, operation, itemCount, continueOnFail),
	);
	if (sends.length > 0) {
		const run = {
			endpoint: await readEndpoint(this),
			batch: readBatchSettings(parameters),
			continueOnFail,
		};
		await sendAll(this, sends, results, run);
	}
	const output = results as INodeExecutionData[];
	return operation.afterSend ? await operation.afterSend(this, output) : [output];
}
