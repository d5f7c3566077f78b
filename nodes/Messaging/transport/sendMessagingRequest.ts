import type { IDataObject, IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

import type { ProviderBudget } from '../vocabulary/providerBudget';
import { readAcknowledgement } from './acknowledgement';
import { CREDENTIAL_TYPE, type MessagingEndpoint } from './endpoint';
import {
	answeredFailure,
	invalidAcknowledgement,
	thrownFailure,
	type SendFailure,
} from './failures';
import type { Acknowledgement, MessagingRequest, SendSettings } from './messagingRequest';
import { readProviderBudget } from './rateLimitHeaders';

export interface FullResponse {
	statusCode: number;
	headers?: unknown;
	body?: unknown;
}

export function joinUrl(baseUrl: string, path: string): string {
	return `${baseUrl.trim().replace(/\/+$/, '')}${path}`;
}

export function requestOptions(
	endpoint: MessagingEndpoint,
	request: MessagingRequest,
	settings: SendSettings,
): IHttpRequestOptions {
	const headers: IDataObject = { accept: 'application/json' };
	const idempotencyKey = settings.idempotencyKey ?? settings.automaticIdempotencyKey;
	if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
	const common = {
		method: 'POST' as const,
		url: joinUrl(endpoint.baseUrl, request.path),
		timeout: settings.timeoutMs,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
	};
	if (settings.bodyEncoding === 'json') {
		return {
			...common,
			headers: { ...headers, 'content-type': 'application/json' },
			body: request.fields,
			json: true,
		};
	}
	return {
		...common,
		headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
		body: new URLSearchParams(request.fields).toString(),
	};
}

/** One try's answer: the acknowledgement, or the failure as a value (nothing is thrown for a failed send). */
export type SendAnswer = { acknowledgement: Acknowledgement } | { failure: SendFailure };

/** A non-2xx answer, or a 2xx whose body is no acknowledgement, is a failure with the provider's own words. */
function answerOf(response: FullResponse, endpoint: MessagingEndpoint): SendAnswer {
	const { statusCode, headers, body } = response;
	if (statusCode < 200 || statusCode > 299)
		return { failure: answeredFailure(statusCode, headers, body, endpoint.apiKey) };
	const acknowledgement = readAcknowledgement(body);
	if (!acknowledgement)
		return { failure: invalidAcknowledgement(statusCode, body, endpoint.apiKey) };
	return { acknowledgement };
}

/**
 * Sends one request through n8n's HTTP helper. The provider's budget (RateLimit-* headers) is told to
 * `onProviderBudget` as soon as the answer arrives, before the answer is read.
 */
export async function sendMessagingRequest(
	this: IExecuteFunctions,
	endpoint: MessagingEndpoint,
	request: MessagingRequest,
	settings: SendSettings,
	onProviderBudget?: (budget: ProviderBudget) => void,
): Promise<SendAnswer> {
	let response: FullResponse;
	try {
		response = (await this.helpers.httpRequestWithAuthentication.call(
			this,
			CREDENTIAL_TYPE,
			requestOptions(endpoint, request, settings),
			endpoint.credentialOptions,
		)) as FullResponse;
	} catch (error) {
		return { failure: thrownFailure(error, endpoint.apiKey) };
	}
	const budget = onProviderBudget && readProviderBudget(response.headers);
	if (budget) onProviderBudget(budget);
	return answerOf(response, endpoint);
}
