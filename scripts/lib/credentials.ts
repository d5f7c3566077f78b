import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { importCredentials, type CredentialToImport, type N8nCliTarget } from '../n8n/cli';
import { EXAMPLE_CREDENTIAL, MODEL_CREDENTIAL } from './examples';

export const SIGNING_SECRET_CREDENTIAL = {
	id: 'msgSandboxSign01',
	name: 'Messaging Sandbox Signing Secret',
};

export function messagingApiCredential(
	baseUrl: string,
	apiKey: string,
	name = EXAMPLE_CREDENTIAL.name,
): CredentialToImport {
	return { id: EXAMPLE_CREDENTIAL.id, name, type: 'messagingApi', data: { apiKey, baseUrl } };
}

/** n8n's OpenAI credential with its Base URL on an OpenAI-compatible server, e.g. the model double's `/v1`. */
export function openAiCredential(baseUrl: string, apiKey = 'sk-model-double'): CredentialToImport {
	return { ...MODEL_CREDENTIAL, type: 'openAiApi', data: { apiKey, url: baseUrl } };
}

export function signingSecretCredential(signingSecret: string): CredentialToImport {
	return { ...SIGNING_SECRET_CREDENTIAL, type: 'messagingWebhookApi', data: { signingSecret } };
}

/** Whether the installed package ships the trigger: its credential and workflows only make sense then. */
export function packageHasTrigger(userFolder: string): boolean {
	return fs.existsSync(
		path.join(
			userFolder,
			'.n8n',
			'nodes',
			'node_modules',
			'n8n-nodes-messaging',
			'dist',
			'nodes',
			'MessagingTrigger',
			'MessagingTrigger.node.js',
		),
	);
}

/** Skips the CLI import (it boots n8n: seconds) when the same credentials were imported into this folder before. */
export async function importCredentialsUnlessUnchanged(
	target: N8nCliTarget,
	credentials: CredentialToImport[],
): Promise<boolean> {
	const stateFile = path.join(target.userFolder, 'imported-credentials.sha256');
	const hash = createHash('sha256').update(JSON.stringify(credentials)).digest('hex');
	if (fs.existsSync(stateFile) && fs.readFileSync(stateFile, 'utf8').trim() === hash) return false;
	await importCredentials(target, credentials);
	fs.writeFileSync(stateFile, `${hash}\n`);
	return true;
}
