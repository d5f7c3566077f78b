import type { IDataObject, IExecuteFunctions, IHttpRequestOptions, INode } from 'n8n-workflow';

import { readAcknowledgement } from './acknowledgement';
import { CREDENTIAL_TYPE, type MessagingEndpoint } from './endpoint';
import { answeredFailureFacts, thrownFailureFacts, readProviderMessage } from './failureFacts';
import type { FailureContext } from './failureAdvice';
import { messagingApiError } from './messagingApiError';
import type { Acknowledgement, MessagingRequest, SendSettings } from './messagingRequest';
import type { ProviderBudget } from '../throughput/providerBudget';
import { readProviderBudget } from './providerBudget';

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

/** A non-2xx answer, or a 2xx whose body is no acknowledgement, is a failure with the provider's own words. */
function acknowledgementOf(
	node: INode,
	response: FullResponse,
	endpoint: MessagingEndpoint,
	itemIndex: number,
	failureContext: FailureContext,
): Acknowledgement {
	const { statusCode, headers, body } = response;
	if (statusCode < 200 || statusCode > 299) {
		const facts = answeredFailureFacts(statusCode, headers, body, endpoint.apiKey);
		throw messagingApiError(node, facts, itemIndex, failureContext);
	}
	const acknowledgement = readAcknowledgement(body);
	if (!acknowledgement) {
		throw messagingApiError(
			node,
			{
				status: statusCode,
				invalidAcknowledgement: true,
				providerMessage: readProviderMessage(body, endpoint.apiKey).message ?? '(empty body)',
			},
			itemIndex,
			failureContext,
		);
	}
	return acknowledgement;
}

export async function sendMessagingRequest(
	this: IExecuteFunctions,
	endpoint: MessagingEndpoint,
	request: MessagingRequest,
	settings: SendSettings,
	itemIndex: number,
	onProviderBudget?: (budget: ProviderBudget) => void,
): Promise<Acknowledgement> {
	const failureContext = {
		timeoutMs: settings.timeoutMs,
		apiKey: endpoint.apiKey,
		idempotent: Boolean(settings.idempotencyKey),
	};
	let response: FullResponse;
	try {
		response = (await this.helpers.httpRequestWithAuthentication.call(
			this,
			CREDENTIAL_TYPE,
			requestOptions(endpoint, request, settings),
			endpoint.credentialOptions,
		)) as FullResponse;
	} catch (error) {
		throw messagingApiError(
			this.getNode(),
			thrownFailureFacts(error, endpoint.apiKey),
			itemIndex,
			failureContext,
		);
	}

	const budget = onProviderBudget && readProviderBudget(response.headers);
	if (budget) onProviderBudget(budget);
	return acknowledgementOf(this.getNode(), response, endpoint, itemIndex, failureContext);
}
