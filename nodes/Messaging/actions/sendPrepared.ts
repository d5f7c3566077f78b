import type {
	IExecuteFunctions,
	INodeExecutionData,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';

import { AdaptiveConcurrencyLimit } from '../throughput/adaptiveConcurrency';
import { createSystemClock, type Clock } from '../throughput/clock';
import { forEachWithConcurrency } from '../throughput/pool';
import type { ProviderBudget } from '../throughput/providerBudget';
import type { AdaptiveSendRateLimiter } from '../throughput/rateLimiter';
import { sendWithRetries } from '../throughput/retryPolicy';
import { classifyMessagingFailure, withTriesMade } from '../transport/messagingApiError';
import type { MessagingEndpoint } from '../transport/endpoint';
import type { MessagingRequest, SendSettings } from '../transport/messagingRequest';
import { sendMessagingRequest } from '../transport/sendMessagingRequest';
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

/** What paces one run: the rate limiter spaces starts, the concurrency limit caps what is on the wire. */
interface Pacing {
	limiter: AdaptiveSendRateLimiter;
	concurrency: AdaptiveConcurrencyLimit;
	clock: Clock;
}

const failureKindOf = (error: unknown) => classifyMessagingFailure(error).kind;

async function sendOne(
	context: IExecuteFunctions,
	{ itemIndex, request, settings }: IndexedSend,
	{ endpoint, batch }: SendRun,
	{ limiter, concurrency, clock }: Pacing,
): Promise<SendResult> {
	const idempotent = Boolean(settings.idempotencyKey);
	const isThrottled = (error: unknown) => failureKindOf(error) === 'rate_limited';
	const tellBudget = (budget: ProviderBudget) => {
		limiter.recordProviderBudget(budget);
		concurrency.recordProviderBudget(budget);
	};
	// Timed inside the rate limiter: a wait for a slot is our pacing, not the provider's latency.
	const sendTimed = async () =>
		await concurrency.track(
			async () =>
				await sendMessagingRequest.call(
					context,
					endpoint,
					request,
					settings,
					itemIndex,
					tellBudget,
				),
			failureKindOf,
		);
	const outcome = await sendWithRetries(
		async (tryNumber) =>
			await limiter.send(tryNumber > 1 ? 'retry' : 'first', sendTimed, isThrottled),
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
 * Sends as many at a time as the adaptive concurrency limit allows (never more than Max Concurrent Requests when
 * set), paced by one rate limiter, and writes each result into its input slot, so order and pairing hold whatever
 * finishes first. Without continue-on-fail the first failure stops further sends and is thrown.
 */
export async function sendAll(
	context: IExecuteFunctions,
	sends: Array<IndexedSend | undefined>,
	results: Array<INodeExecutionData | undefined>,
	run: SendRun,
	clock: Clock = createSystemClock(),
): Promise<void> {
	const pacing: Pacing = {
		limiter: rateLimiterForRun(context, run.batch.maxPerSecond, clock),
		concurrency: new AdaptiveConcurrencyLimit(
			{ upperBound: run.batch.maxConcurrency || undefined },
			clock,
		),
		clock,
	};
	let stopError: { error: unknown } | undefined;
	await forEachWithConcurrency(
		sends.length,
		() => pacing.concurrency.current,
		async (position) => {
			const send = sends[position]!;
			sends[position] = undefined;
			const result = await sendOne(context, send, run, pacing);
			if ('item' in result) {
				results[send.itemIndex] = result.item;
				run.onAcknowledged?.(send.itemIndex);
			} else if (run.continueOnFail)
				results[send.itemIndex] = errorItem(context, result.error, send.itemIndex);
			else stopError ??= { error: result.error };
		},
		() => stopError === undefined,
	);
	if (stopError) throw stopError.error;
}
