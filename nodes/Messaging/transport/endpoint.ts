import { NodeOperationError } from 'n8n-workflow';
import type { IAdditionalCredentialOptions, IExecuteFunctions } from 'n8n-workflow';

export const CREDENTIAL_TYPE = 'messagingApi';

export interface MessagingEndpoint {
	baseUrl: string;
	apiKey?: string;
	/**
	 * The credential as read once for the run. Handed to n8n's helper, it skips n8n's per-request read and
	 * decryption of the credential; the credential's own authenticate still runs on every request.
	 */
	credentialOptions?: IAdditionalCredentialOptions;
}

export const BASE_URL_PROBLEM = 'The Messaging API credential has no valid Base URL';
export const BASE_URL_FIX =
	'Open the credential and set Base URL to the API root, e.g. https://api.example.com.';

/** The Base URL trimmed, when it is an absolute http(s) address; undefined otherwise. */
export function validBaseUrl(value: unknown): string | undefined {
	const baseUrl = String(value ?? '').trim();
	return /^https?:\/\/[^/\s]+/i.test(baseUrl) ? baseUrl : undefined;
}

/** Reads the credential once per run: where requests go, with which key. */
export async function readEndpoint(context: IExecuteFunctions): Promise<MessagingEndpoint> {
	const credentials = await context.getCredentials<{ baseUrl?: string; apiKey?: string }>(
		CREDENTIAL_TYPE,
	);
	const baseUrl = validBaseUrl(credentials.baseUrl);
	if (!baseUrl) {
		throw new NodeOperationError(context.getNode(), BASE_URL_PROBLEM, {
			description: BASE_URL_FIX,
		});
	}
	const stored = context.getNode().credentials?.[CREDENTIAL_TYPE];
	const credentialsDecrypted = {
		id: stored?.id ?? '',
		name: stored?.name ?? '',
		type: CREDENTIAL_TYPE,
		data: credentials,
	};
	return { baseUrl, apiKey: credentials.apiKey, credentialOptions: { credentialsDecrypted } };
}
