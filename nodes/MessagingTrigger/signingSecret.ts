import type { IWebhookFunctions } from 'n8n-workflow';

export const SIGNING_SECRET_CREDENTIAL = 'messagingWebhookApi';
/** How long a read signing secret is reused: n8n reads and decrypts the credential from its database on every call. */
export const SIGNING_SECRET_TTL_MS = 5_000;

interface CachedSecret {
	signingSecret: string | undefined;
	readAtMs: number;
}

const secretsByCredential = new Map<string, CachedSecret>();

function cacheKey(context: IWebhookFunctions): string | undefined {
	const credentialId = context.getNode().credentials?.[SIGNING_SECRET_CREDENTIAL]?.id;
	return credentialId ? `${context.getWorkflow().id ?? ''}/${credentialId}` : undefined;
}

/**
 * The credential's signing secret, read at most every SIGNING_SECRET_TTL_MS per workflow and credential under a
 * burst. `fresh` reads it again whatever its age: after a signature mismatch, so a changed secret applies at once.
 */
export async function readSigningSecret(
	context: IWebhookFunctions,
	fresh = false,
): Promise<{ signingSecret?: string; cached: boolean }> {
	const key = cacheKey(context);
	const cached = key ? secretsByCredential.get(key) : undefined;
	if (!fresh && cached && Date.now() - cached.readAtMs < SIGNING_SECRET_TTL_MS) {
		return { signingSecret: cached.signingSecret, cached: true };
	}
	const { signingSecret } = await context.getCredentials<{ signingSecret?: string }>(
		SIGNING_SECRET_CREDENTIAL,
	);
	if (key) secretsByCredential.set(key, { signingSecret, readAtMs: Date.now() });
	return { signingSecret, cached: false };
}
