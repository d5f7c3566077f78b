import type { ICredentialsDecrypted, INodeCredentialTestResult } from 'n8n-workflow';

/**
 * The API has no endpoint that proves a signing secret, so this checks what can go wrong when
 * pasting it: nothing pasted, or stray whitespace that would make every signature mismatch.
 */
export async function testSigningSecret(
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const secret = credential.data?.signingSecret;
	if (typeof secret !== 'string' || secret.trim() === '') {
		return {
			status: 'Error',
			message: 'Signing Secret is empty. Paste the account signing secret.',
		};
	}
	if (secret !== secret.trim()) {
		return {
			status: 'Error',
			message:
				'Signing Secret starts or ends with whitespace. Remove it: the secret is used byte for byte.',
		};
	}
	return {
		status: 'OK',
		message:
			'Signing Secret is well formed. Deliveries signed with another secret are refused with 401.',
	};
}
