import type { IWebhookFunctions } from 'n8n-workflow';

import { RecentlyUsedMap } from '../shared/recentlyUsedMap';

export const SIGNING_SECRET_CREDENTIAL = 'messagingWebhookApi';
/** How long a read signing secret is reused: n8n reads and decrypts the credential from its database on every call. */
export const SIGNING_SECRET_TTL_MS = 5_000;
/**
 * How old the secret must be before a delivery it does not verify reads it again. Unsigned or forged traffic
 * then costs one credential read per second at most, and a secret changed in the credential applies within it.
 */
export const SIGNING_SECRET_RECHECK_MS = 1_000;
/** Credentials whose secret one process keeps; the least recently used beyond it is dropped. */
export const REMEMBERED_SIGNING_SECRETS = 100;

interface CachedSecret {
	signingSecret: string | undefined;
	readAtMs: number;
}

/** Per workflow and credential: n8n checks a workflow's right to use a credential when the node reads it. */
const secretsByCredential = new RecentlyUsedMap<string, CachedSecret>(REMEMBERED_SIGNING_SECRETS);
/** Reads in flight, so a burst of deliveries that all need the secret share one read. */
const readsInFlight = new Map<string, Promise<CachedSecret>>();

function cacheKey(context: IWebhookFunctions): string | undefined {
	const credentialId = context.getNode().credentials?.[SIGNING_SECRET_CREDENTIAL]?.id;
	return credentialId ? `${context.getWorkflow().id ?? ''}/${credentialId}` : undefined;
}

async function readCredential(context: IWebhookFunctions): Promise<CachedSecret> {
	const { signingSecret } = await context.getCredentials<{ signingSecret?: string }>(
		SIGNING_SECRET_CREDENTIAL,
	);
	return { signingSecret, readAtMs: Date.now() };
}

function readShared(context: IWebhookFunctions, key: string): Promise<CachedSecret> {
	let read = readsInFlight.get(key);
	if (!read) {
		read = readCredential(context).finally(() => readsInFlight.delete(key));
		readsInFlight.set(key, read);
		void read.then((secret) => secretsByCredential.set(key, secret)).catch(() => undefined);
	}
	return read;
}

/**
 * The credential's signing secret, read again only when the one held is older than `maxAgeMs`:
 * SIGNING_SECRET_TTL_MS for a delivery, SIGNING_SECRET_RECHECK_MS once the held secret did not verify it.
 * `reread` says whether this call read the credential, so a caller checks a mismatch again only then.
 */
export async function readSigningSecret(
	context: IWebhookFunctions,
	maxAgeMs = SIGNING_SECRET_TTL_MS,
): Promise<{ signingSecret?: string; reread: boolean }> {
	const key = cacheKey(context);
	if (!key) return { signingSecret: (await readCredential(context)).signingSecret, reread: true };
	const held = secretsByCredential.get(key);
	if (held && Date.now() - held.readAtMs < maxAgeMs)
		return { signingSecret: held.signingSecret, reread: false };
	const read = await readShared(context, key);
	return { signingSecret: read.signingSecret, reread: true };
}
