import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { readProviderMessage, redactSecret } from '../transport/failureFacts';
import { joinUrl } from '../transport/sendMessagingRequest';

interface LegacyFullResponse {
	statusCode: number;
	body?: unknown;
}

/**
 * No read endpoint exists, so an empty SMS send proves the key: 401/403 rejected it, 400/422 refused only the body.
 * Declarative `test.request` cannot tell them apart: n8n's tester sees either no non-2xx or no status at all.
 */
export async function testMessagingApiCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const apiKey = String(credential.data?.apiKey ?? '');
	const baseUrl = String(credential.data?.baseUrl ?? '').trim();
	if (!/^https?:\/\/[^/\s]+/i.test(baseUrl)) {
		return {
			status: 'Error',
			message: 'Base URL must be an absolute http(s) address, e.g. https://api.example.com',
		};
	}
	if (apiKey.trim() === '') return { status: 'Error', message: 'Enter the API Key' };

	let response: LegacyFullResponse;
	try {
		// eslint-disable-next-line @n8n/community-nodes/no-deprecated-workflow-functions
		response = (await this.helpers.request({
			method: 'POST',
			uri: joinUrl(baseUrl, '/v1/sms/send'),
			headers: { Authorization: `Bearer ${apiKey}`, accept: 'application/json' },
			body: {},
			json: true,
			simple: false,
			resolveWithFullResponse: true,
			timeout: 15000,
		})) as LegacyFullResponse;
	} catch (error) {
		const { code, message } = error as { code?: unknown; message?: unknown };
		const reason = typeof code === 'string' ? code : String(message ?? 'unknown error');
		return {
			status: 'Error',
			message: redactSecret(`Could not reach ${baseUrl}: ${reason}. Check the Base URL.`, apiKey),
		};
	}

	const { statusCode } = response;
	const provider = redactSecret(readProviderMessage(response.body, apiKey).message, apiKey);
	// The provider's words come last and apart: they often carry advice of their own, which must not blur ours.
	const providerSaid = provider ? ` The API said: "${provider}"` : '';
	if (statusCode === 401 || statusCode === 403) {
		return {
			status: 'Error',
			message: `API key rejected (HTTP ${statusCode}). Check the API Key.${providerSaid}`,
		};
	}
	if (statusCode === 400 || statusCode === 422 || (statusCode >= 200 && statusCode < 300)) {
		return { status: 'OK', message: 'API key accepted' };
	}
	if (statusCode === 404) {
		return {
			status: 'Error',
			message: `No Messaging API found at ${baseUrl} (HTTP 404 for /v1/sms/send). Set Base URL to the API root, without /v1.${providerSaid}`,
		};
	}
	return {
		status: 'Error',
		message: `The Messaging API answered HTTP ${statusCode}. Try again later.${providerSaid}`,
	};
}
