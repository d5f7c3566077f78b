import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IHttpRequestOptions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { MessagingApi } from '../../../credentials/MessagingApi.credentials';
import { BASE_URL_FIX, validBaseUrl } from '../transport/endpoint';
import { probeApiKey, type PerformRequest } from '../transport/probeApiKey';
import type { FullResponse } from '../transport/sendMessagingRequest';

const messagingApi = new MessagingApi();

/**
 * n8n's credential tester hands a test function only the legacy `request` helper (n8n-core's CredentialTestContext),
 * so the transport's request, with the credential's own authenticate applied, is translated to its options.
 */
function performWithLegacyRequest(
	context: ICredentialTestFunctions,
	credentials: ICredentialDataDecryptedObject,
): PerformRequest {
	return async (options: IHttpRequestOptions): Promise<FullResponse> => {
		const { method, url, headers, body, json, timeout } = await messagingApi.authenticate(
			credentials,
			options,
		);
		return (await context.helpers.request({
			method,
			uri: url,
			headers,
			body,
			json,
			timeout,
			simple: false,
			resolveWithFullResponse: true,
		})) as FullResponse;
	};
}

/**
 * Declarative `test.request` cannot tell 401 from 422 (n8n's tester fails on every non-2xx), and the key is proved
 * by an empty send that the API refuses for its body: so a function, over the transport like every send.
 */
export async function testMessagingApiCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const credentials = credential.data ?? {};
	const baseUrl = validBaseUrl(credentials.baseUrl);
	if (!baseUrl) return { status: 'Error', message: `Base URL is not valid. ${BASE_URL_FIX}` };
	const apiKey = String(credentials.apiKey ?? '');
	if (apiKey.trim() === '') return { status: 'Error', message: 'Enter the API Key' };

	const result = await probeApiKey(
		{ baseUrl, apiKey },
		performWithLegacyRequest(this, credentials),
	);
	return result.accepted
		? { status: 'OK', message: 'API key accepted' }
		: { status: 'Error', message: result.message };
}
