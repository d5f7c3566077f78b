import type {
	IExecuteFunctions,
	INodeExecutionData,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';

import { createSystemClock, type Clock } from '../throughput/clock';
import { forEachWithConcurrency } from '../throughput/pool';
import { AdaptiveSendRateLimiter } from '../throughput/rateLimiter';
import { sendWithRetries } from '../throughput/retryPolicy';
import { classifyMessagingFailure, withTriesMade } from '../transport/messagingApiError';
import type { MessagingEndpoint } from '../transport/endpoint';
import type { MessagingRequest, SendSettings } from '../transport/messagingRequest';
import { sendMessagingRequest } from '../transport/sendMessagingRequest';
import type { BatchSettings } from './common/sendSettings';
import { asNodeError, errorItem } from './itemErrors';

export interface PreparedSend {
	request: MessagingRequest;
	settings: SendSettings;
}

export interface SendRun {
	endpoint: MessagingEndpoint;
	batch: BatchSettings;
	continueOnFail: boolean;
}

export interface IndexedSend extends PreparedSend {
	itemIndex: number;
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
export async function sendAll(
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
