import type {
	IExecuteFunctions,
	INodeExecutionData,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';

import { createSystemClock, type Clock } from '../throughput/clock';
import { paceSlotFor } from '../throughput/paceMemory';
import { forEachWithConcurrency } from '../throughput/pool';
import { SendPacing } from '../throughput/sendPacing';
import type { MessagingEndpoint } from '../transport/endpoint';
import { failureError, sendWithRetries } from '../transport/failures';
import type {
	Acknowledgement,
	MessagingRequest,
	SendSettings,
} from '../transport/messagingRequest';
import { sendMessagingRequest, type SendAnswer } from '../transport/sendMessagingRequest';
import type { BatchSettings } from './common/sendSettings';
import { asNodeError, errorItem } from './itemErrors';
import { rateLimiterForRun } from './runRateLimiter';

export interface PreparedSend {
	request: MessagingRequest;
	settings: SendSettings;
}

export interface SendRun {
	endpoint: MessagingEndpoint;
	batch: BatchSettings;
	continueOnFail: boolean;
	/** Told of each send the provider acknowledged, as it is acknowledged. */
	onAcknowledged?: (itemIndex: number) => void;
}

export interface IndexedSend extends PreparedSend {
	itemIndex: number;
}

type SendResult = { item: INodeExecutionData } | { error: NodeOperationError | NodeApiError };

const failureOf = (answer: SendAnswer) => ('failure' in answer ? answer.failure : undefined);
const failureKindOf = (answer: SendAnswer) => failureOf(answer)?.kind;

function outputItem(
	context: IExecuteFunctions,
	acknowledgement: Acknowledgement,
	itemIndex: number,
): INodeExecutionData {
	const json = context.helpers.returnJsonArray(acknowledgement);
	return context.helpers.constructExecutionMetaData(json, { itemData: { item: itemIndex } })[0];
}

/** One message: paced, sent, retried while its failure allows, and turned into its output item or its error. */
async function sendOne(
	context: IExecuteFunctions,
	{ itemIndex, request, settings }: IndexedSend,
	{ endpoint, batch }: SendRun,
	pacing: SendPacing,
): Promise<SendResult> {
	const idempotent = Boolean(settings.idempotencyKey);
	const sendTry = async (tryNumber: number) =>
		await pacing.send(
			tryNumber > 1 ? 'retry' : 'first',
			async (tellBudget) =>
				await sendMessagingRequest.call(context, endpoint, request, settings, tellBudget),
			failureKindOf,
		);
	const limits = { maxTries: batch.maxTriesPerMessage, idempotent };
	const outcome = await sendWithRetries(sendTry, failureOf, limits, pacing.clock);
	if ('error' in outcome) return { error: asNodeError(context, outcome.error, itemIndex) };
	const { answer, triesMade } = outcome;
	if ('acknowledgement' in answer)
		return { item: outputItem(context, answer.acknowledgement, itemIndex) };
	// "429" reads as "still 429 after 3 tries" once more than one try was made.
	const tries = triesMade > 1 ? { triesMade } : {};
	const failureContext = { timeoutMs: settings.timeoutMs, apiKey: endpoint.apiKey, idempotent };
	const failure = answer.failure;
	return {
		error: failureError(context.getNode(), failure, itemIndex, { ...failureContext, ...tries }),
	};
}

/**
 * Sends as many at a time as the pacing allows (never more than Max Concurrent Requests when set) and returns
 * each result by its input item's index, so order and pairing hold whatever finishes first. Without
 * continue-on-fail the first failure stops further sends and is thrown.
 */
export async function sendAll(
	context: IExecuteFunctions,
	sends: Array<IndexedSend | undefined>,
	run: SendRun,
	clock: Clock = createSystemClock(),
): Promise<Map<number, INodeExecutionData>> {
	const limiter = rateLimiterForRun(context, run.batch.maxPerSecond, clock);
	const pacing = new SendPacing(
		limiter,
		run.batch.maxConcurrency,
		clock,
		paceSlotFor(run.endpoint),
	);
	const results = new Map<number, INodeExecutionData>();
	let stopError: { error: unknown } | undefined;
	await forEachWithConcurrency(
		sends.length,
		() => pacing.inFlightLimit,
		async (position) => {
			const send = sends[position]!;
			// Dropped as soon as it is on its way: a large run need not hold every prepared request.
			sends[position] = undefined;
			const result = await sendOne(context, send, run, pacing);
			if ('item' in result) {
				results.set(send.itemIndex, result.item);
				run.onAcknowledged?.(send.itemIndex);
			} else if (run.continueOnFail)
				results.set(send.itemIndex, errorItem(context, result.error, send.itemIndex));
			else stopError ??= { error: result.error };
		},
		() => stopError === undefined,
	);
	if (stopError) throw stopError.error;
	return results;
}
