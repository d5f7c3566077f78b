import type {
	IAdditionalCredentialOptions,
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
} from 'n8n-workflow';

import { readAcknowledgement } from './acknowledgement';
import { thrownFailureFacts, readHeader, readProviderMessage } from './failureFacts';
import { messagingApiError } from './messagingApiError';
import type { Acknowledgement, MessagingRequest, SendSettings } from './messagingRequest';

export interface MessagingEndpoint {
	baseUrl: string;
	apiKey?: string;
	/** The credential as read once for the run; without it n8n's helper reads it again for every request. */
	credentials?: ICredentialDataDecryptedObject;
}

const CREDENTIAL_TYPE = 'messagingApi';
const credentialOptionsByEndpoint = new WeakMap<MessagingEndpoint, IAdditionalCredentialOptions>();

/**
 * Handing n8n the credential already read skips its per-request getCredentials (in n8n a database read and
 * a decryption); the credential's own authenticate still runs on every request.
 */
function credentialOptions(
	context: IExecuteFunctions,
	endpoint: MessagingEndpoint,
): IAdditionalCredentialOptions | undefined {
	if (!endpoint.credentials) return undefined;
	let options = credentialOptionsByEndpoint.get(endpoint);
	if (!options) {
		const stored = context.getNode().credentials?.[CREDENTIAL_TYPE];
		options = {
			credentialsDecrypted: {
				id: stored?.id ?? '',
				name: stored?.name ?? '',
				type: CREDENTIAL_TYPE,
				data: endpoint.credentials,
			},
		};
		credentialOptionsByEndpoint.set(endpoint, options);
	}
	return options;
}

interface FullResponse {
	statusCode: number;
	headers?: unknown;
	body?: unknown;
}

export function joinUrl(baseUrl: string, path: string): string {
	return `${baseUrl.trim().replace(/\/+$/, '')}${path}`;
}

function requestOptions(
	endpoint: MessagingEndpoint,
	request: MessagingRequest,
	settings: SendSettings,
): IHttpRequestOptions {
	const headers: IDataObject = { accept: 'application/json' };
	if (settings.idempotencyKey) headers['Idempotency-Key'] = settings.idempotencyKey;
	const common = {
		method: 'POST' as const,
		url: joinUrl(endpoint.baseUrl, request.path),
		timeout: settings.timeoutMs,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
	};
	if (settings.bodyEncoding === 'json') {
		return { ...common, headers: { ...headers, 'content-type': 'application/json' }, body: request.fields, json: true };
	}
	return {
		...common,
		headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
		body: new URLSearchParams(request.fields).toString(),
	};
}

export async function sendMessagingRequest(
	this: IExecuteFunctions,
	endpoint: MessagingEndpoint,
	request: MessagingRequest,
	settings: SendSettings,
	itemIndex: number,
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
			credentialOptions(this, endpoint),
		)) as FullResponse;
	} catch (error) {
		throw messagingApiError(this.getNode(), thrownFailureFacts(error, endpoint.apiKey), itemIndex, failureContext);
	}

	const { statusCode, headers, body } = response;
	if (statusCode < 200 || statusCode > 299) {
		const provider = readProviderMessage(body, endpoint.apiKey);
		throw messagingApiError(
			this.getNode(),
			{
				status: statusCode,
				retryAfter: readHeader(headers, 'retry-after'),
				providerMessage: provider.message,
				providerField: provider.field,
				providerCode: provider.code,
			},
			itemIndex,
			failureContext,
		);
	}
	const acknowledgement = readAcknowledgement(body);
	if (!acknowledgement) {
		throw messagingApiError(
			this.getNode(),
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
