import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';

import { createSystemClock } from '../throughput/clock';
import { forEachWithConcurrency } from '../throughput/pool';
import { SendRateLimiter } from '../throughput/rateLimiter';
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

function errorItem(error: Error, itemIndex: number): INodeExecutionData {
	const json: JsonObject = { error: error.message };
	const { description } = error as { description?: unknown };
	if (typeof description === 'string' && description) json.description = description;
	if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
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
	return { baseUrl, apiKey: credentials.apiKey };
}

/** Every item is validated before any is sent, so a bad row never leaves half a batch delivered. */
export async function route(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const continueOnFail = this.continueOnFail();
	const prepare = resolveOperation(this);
	const results: INodeExecutionData[] = new Array(items.length);
	const pending: Array<PreparedSend | undefined> = new Array(items.length);
	const pendingIndexes: number[] = [];

	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			pending[itemIndex] = { request: prepare.call(this, itemIndex), settings: readSendSettings(this, itemIndex) };
			pendingIndexes.push(itemIndex);
		} catch (error) {
			const nodeError = asNodeError(this, error, itemIndex);
			if (!continueOnFail) throw nodeError;
			results[itemIndex] = errorItem(nodeError, itemIndex);
		}
	}

	if (pendingIndexes.length > 0) {
		const endpoint = await readEndpoint(this);
		const batch = readBatchSettings(this);
		const clock = createSystemClock();
		const limiter = new SendRateLimiter(batch.maxPerSecond, clock);
		let stopError: { error: unknown } | undefined;

		await forEachWithConcurrency(
			pendingIndexes.length,
			batch.maxConcurrency,
			async (position) => {
				const itemIndex = pendingIndexes[position];
				const { request, settings } = pending[itemIndex]!;
				pending[itemIndex] = undefined;
				const outcome = await sendWithRetries(
					async () => {
						await limiter.acquire();
						return await sendMessagingRequest.call(this, endpoint, request, settings, itemIndex);
					},
					classifyMessagingFailure,
					{ maxTries: batch.maxTries429, idempotent: Boolean(settings.idempotencyKey) },
					clock,
				);
				if (outcome.ok) {
					results[itemIndex] = this.helpers.constructExecutionMetaData(this.helpers.returnJsonArray(outcome.value), {
						itemData: { item: itemIndex },
					})[0];
					return;
				}
				const error = withTriesMade(outcome.error, this.getNode(), itemIndex, {
					timeoutMs: settings.timeoutMs,
					triesMade: outcome.triesMade,
					apiKey: endpoint.apiKey,
					idempotent: Boolean(settings.idempotencyKey),
				}) as Error;
				if (continueOnFail) results[itemIndex] = errorItem(error, itemIndex);
				else stopError ??= { error };
			},
			() => stopError === undefined,
		);

		if (stopError) throw stopError.error;
	}

	return [results];
}
