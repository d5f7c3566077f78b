import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';

import { createSystemClock } from '../throughput/clock';
import { forEachWithConcurrency } from '../throughput/pool';
import { AdaptiveSendRateLimiter } from '../throughput/rateLimiter';
import { sendWithRetries } from '../throughput/retryPolicy';
import { classifyMessagingFailure, withTriesMade } from '../transport/messagingApiError';
import type { MessagingRequest, SendSettings } from '../transport/messagingRequest';
import { sendMessagingRequest } from '../transport/sendMessagingRequest';
import type { MessagingEndpoint } from '../transport/sendMessagingRequest';
import { readBatchSettings, readSendSettings } from './common/sendSettings';
import * as sms from './sms';
import type { MessagingResource, OperationMap, PrepareRequest } from './types';
import * as whatsapp from './whatsapp';

const operations: OperationMap = {
	sms: { send: sms.send.prepareSmsSend },
	whatsapp: { send: whatsapp.send.prepareWhatsappSend },
};

interface PreparedSend {
	request: MessagingRequest;
	settings: SendSettings;
}

function resolveOperation(context: IExecuteFunctions): PrepareRequest {
	const resource = context.getNodeParameter('resource', 0) as MessagingResource;
	const operation = context.getNodeParameter('operation', 0, '') as string;
	const prepare = operations[resource]?.[operation];
	if (!prepare) {
		throw new NodeOperationError(
			context.getNode(),
			`The resource "${resource}" has no operation "${operation || '(none)'}"`,
			{
				description: 'Choose SMS or WhatsApp as Resource and Send as Operation.',
			},
		);
	}
	return prepare;
}

function asNodeError(context: IExecuteFunctions, error: unknown, itemIndex: number): NodeOperationError | NodeApiError {
	if (error instanceof NodeOperationError || error instanceof NodeApiError) return error;
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}

/**
 * n8n moves an item to the error output only when its json has no keys but `error`, `message` and `details`
 * (an item-level `error` would work too, but n8n then cuts its json down to the message alone). So with the
 * error output the facts go under `details`, and n8n adds the input item's fields beside them.
 */
function errorItem(context: IExecuteFunctions, error: NodeOperationError | NodeApiError, itemIndex: number): INodeExecutionData {
	const facts: JsonObject = {};
	if (typeof error.description === 'string' && error.description) facts.description = error.description;
	if (error instanceof NodeApiError && error.httpCode) facts.httpCode = error.httpCode;
	const toErrorOutput = context.getNode().onError === 'continueErrorOutput';
	const json: JsonObject = toErrorOutput ? { error: error.message, details: facts } : { error: error.message, ...facts };
	return { json, pairedItem: { item: itemIndex } };
}

async function readEndpoint(context: IExecuteFunctions): Promise<MessagingEndpoint> {
	const credentials = await context.getCredentials<{ baseUrl?: string; apiKey?: string }>('messagingApi');
	const baseUrl = String(credentials.baseUrl ?? '').trim();
	if (!/^https?:\/\/[^/\s]+/i.test(baseUrl)) {
		throw new NodeOperationError(context.getNode(), 'The Messaging API credential has no valid Base URL', {
			description: 'Open the credential and set Base URL to the API root, e.g. https://api.example.com.',
		});
	}
	return { baseUrl, apiKey: credentials.apiKey, credentials };
}

type PreparedItems = Array<PreparedSend | undefined>;

function prepareAll(context: IExecuteFunctions, results: INodeExecutionData[], continueOnFail: boolean): PreparedItems {
	const prepare = resolveOperation(context);
	const prepared: PreparedItems = new Array(results.length);
	for (let itemIndex = 0; itemIndex < results.length; itemIndex++) {
		try {
			prepared[itemIndex] = {
				request: prepare.call(context, itemIndex),
				settings: readSendSettings(context, itemIndex),
			};
		} catch (error) {
			const nodeError = asNodeError(context, error, itemIndex);
			if (!continueOnFail) throw nodeError;
			results[itemIndex] = errorItem(context, nodeError, itemIndex);
		}
	}
	return prepared;
}

/** Each result lands in its input slot, so order and pairing hold whatever finishes first. */
async function sendAll(
	context: IExecuteFunctions,
	prepared: PreparedItems,
	results: INodeExecutionData[],
	continueOnFail: boolean,
): Promise<void> {
	const sendIndexes = prepared.flatMap((item, itemIndex) => (item ? [itemIndex] : []));
	if (sendIndexes.length === 0) return;
	const endpoint = await readEndpoint(context);
	const batch = readBatchSettings(context);
	const clock = createSystemClock();
	const limiter = new AdaptiveSendRateLimiter({ maxPerSecond: batch.maxPerSecond }, clock);
	const isThrottled = (error: unknown) => classifyMessagingFailure(error).kind === 'rate_limited';
	let stopError: { error: unknown } | undefined;

	await forEachWithConcurrency(
		sendIndexes.length,
		batch.maxConcurrency,
		async (position) => {
			const itemIndex = sendIndexes[position];
			const { request, settings } = prepared[itemIndex]!;
			prepared[itemIndex] = undefined;
			const idempotent = Boolean(settings.idempotencyKey);
			const outcome = await sendWithRetries(
				async (tryNumber) =>
					await limiter.send(
						tryNumber > 1 ? 'retry' : 'first',
						async () => await sendMessagingRequest.call(context, endpoint, request, settings, itemIndex),
						isThrottled,
					),
				classifyMessagingFailure,
				{ maxTries: batch.maxTries429, idempotent },
				clock,
			);
			if (outcome.ok) {
				const [item] = context.helpers.constructExecutionMetaData(context.helpers.returnJsonArray(outcome.value), {
					itemData: { item: itemIndex },
				});
				results[itemIndex] = item;
				return;
			}
			const error = asNodeError(
				context,
				withTriesMade(outcome.error, context.getNode(), itemIndex, {
					timeoutMs: settings.timeoutMs,
					triesMade: outcome.triesMade,
					apiKey: endpoint.apiKey,
					idempotent,
				}),
				itemIndex,
			);
			if (continueOnFail) results[itemIndex] = errorItem(context, error, itemIndex);
			else stopError ??= { error };
		},
		() => stopError === undefined,
	);

	if (stopError) throw stopError.error;
}

/** Every item is validated before any is sent, so a bad row never leaves half a batch delivered. */
export async function route(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const results: INodeExecutionData[] = new Array(this.getInputData().length);
	const continueOnFail = this.continueOnFail();
	const prepared = prepareAll(this, results, continueOnFail);
	await sendAll(this, prepared, results, continueOnFail);
	return [results];
}
