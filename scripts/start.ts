/**
 * `npm start`: the package running in a real n8n against the local sandbox, one click from sending.
 * First run installs n8n into .cache (minutes); later runs reuse it and the last build (seconds).
 */
import path from 'node:path';

import {
	importCredentialsUnlessUnchanged,
	messagingApiCredential,
	openAiCredential,
	packageHasTrigger,
	signingSecretCredential,
} from './lib/credentials';
import { activateTriggerExamples, importExamples } from './lib/example-import';
import { INBOUND_REPLY_EXAMPLE_ID, loadExamples, triggerPathOf } from './lib/examples';
import { assertPortFree, findFreePort, LOOPBACK, readPortFromEnv } from './lib/ports';
import { SandboxAdmin } from './lib/sandbox-admin';
import {
	SANDBOX_API_KEY,
	SANDBOX_SIGNING_SECRET,
	startSandboxServer,
	type SandboxServer,
} from './lib/sandbox-server';
import { loadOrCreateOwnerAccount } from './lib/owner-account';
import { runStartScript, StopSwitch } from './lib/process-group';
import { startModelDouble, type ModelDouble } from './model-double/server';
import { ensureN8nInstalled } from './n8n/install';
import { buildAndPack, installPackageIntoUserFolder } from './n8n/package';
import { CACHE_DIR } from './n8n/paths';
import { N8nRestClient } from './n8n/rest-client';
import { startN8nServer, type N8nServer } from './n8n/server';

const USER_FOLDER = path.join(CACHE_DIR, 'start');

function step(message: string): void {
	console.log(`› ${message}`);
}

async function main(): Promise<void> {
	const started = Date.now();
	const n8nPort = readPortFromEnv('N8N_PORT', 5678);
	const sandboxPort = readPortFromEnv('SANDBOX_PORT', 4010);
	const modelPort = readPortFromEnv('MODEL_DOUBLE_PORT', 5680);
	await assertPortFree(n8nPort, 'the n8n editor', 'N8N_PORT');
	await assertPortFree(sandboxPort, 'the sandbox', 'SANDBOX_PORT');
	await assertPortFree(modelPort, 'the model double', 'MODEL_DOUBLE_PORT');

	await ensureN8nInstalled(step);
	const packed = await buildAndPack(path.join(CACHE_DIR, 'pack'), { reuseIfUnchanged: true });
	step(
		packed.reused
			? 'Package unchanged since the last start: reusing its build'
			: `Built and packed ${path.basename(packed.tarball)}`,
	);
	if ((await installPackageIntoUserFolder(USER_FOLDER, packed)) === 'installed') {
		step('Installed the package into .cache/start/.n8n/nodes');
	}

	let sandbox: SandboxServer | undefined;
	let n8n: N8nServer | undefined;
	let modelDouble: ModelDouble | undefined;
	const stopSwitch = new StopSwitch('n8n and the sandbox', async () => {
		await n8n?.stop();
		await sandbox?.stop();
		await modelDouble?.stop();
	});

	await stopSwitch.startOrStopAll(async () => {
		const sandboxBaseUrl = `http://${LOOPBACK}:${sandboxPort}`;
		const origin = `http://${LOOPBACK}:${n8nPort}`;
		const target = { userFolder: USER_FOLDER, port: n8nPort };
		const hasTrigger = packageHasTrigger(USER_FOLDER);
		modelDouble = await startModelDouble(modelPort);
		await importCredentialsUnlessUnchanged(target, [
			messagingApiCredential(sandboxBaseUrl, SANDBOX_API_KEY),
			...(hasTrigger ? [signingSecretCredential(SANDBOX_SIGNING_SECRET)] : []),
			openAiCredential(modelDouble.openAiBaseUrl),
		]);
		const examples = loadExamples();
		const imported = await importExamples(target, examples, { origin, keepUnchanged: true });
		step(
			imported.length
				? `Imported ${imported.length} example workflow(s)`
				: 'Example workflows already imported (your edits are kept)',
		);

		// Neither needs the other to boot; n8n's boot is the long part of a restart.
		step('Starting the sandbox and n8n');
		const [sandboxStart, n8nStart] = await Promise.allSettled([
			startSandboxServer(sandboxPort, path.join(USER_FOLDER, 'sandbox.log')),
			startN8nServer({ userFolder: USER_FOLDER, port: n8nPort, brokerPort: await findFreePort() }),
		]);
		if (sandboxStart.status === 'fulfilled') sandbox = sandboxStart.value;
		if (n8nStart.status === 'fulfilled') n8n = n8nStart.value;
		if (sandboxStart.status === 'rejected') throw sandboxStart.reason;
		if (n8nStart.status === 'rejected') throw n8nStart.reason;
		if (!sandbox || !n8n) throw new Error('unreachable: both started');
		const owner = loadOrCreateOwnerAccount(USER_FOLDER);
		const client = new N8nRestClient(n8n.baseUrl);
		await client.setupOwnerOrLogin(owner);
		if (hasTrigger) {
			for (const name of await activateTriggerExamples(client, examples))
				step(`Activated "${name}": its production webhook is live`);
			const inboundReply = examples.find(
				(example) => example.workflow.id === INBOUND_REPLY_EXAMPLE_ID,
			);
			if (inboundReply) {
				// Inbound messages only ever go to the account webhook.
				const url = `${origin}${triggerPathOf(inboundReply)}`;
				await new SandboxAdmin(sandbox.baseUrl).setAccountWebhook(url);
				step(
					`The sandbox's account webhook is "${inboundReply.workflow.name}": simulated inbound WhatsApp messages run it`,
				);
			}
		}

		stopSwitch.stopAllWhenExited('n8n', n8n);
		stopSwitch.stopAllWhenExited('The sandbox', sandbox);

		console.log(`
Ready in ${Math.round((Date.now() - started) / 1000)} s.

  n8n editor   ${n8n.baseUrl}
  login        ${owner.email} / ${owner.password}
  sandbox API  ${sandbox.baseUrl}  (API key ${SANDBOX_API_KEY}; what it received: ${sandbox.baseUrl}/__admin/requests)
  model double ${modelDouble.openAiBaseUrl}  (the "OpenAI (local model double)" credential; what it received: ${modelDouble.baseUrl}/__admin/requests)

The "Messaging Sandbox" credential points at the sandbox and the examples are in Overview → Workflows:
open one and click "Execute workflow". A customer writing on WhatsApp (answered by the inbound-reply example):
  curl -X POST ${sandbox.baseUrl}/__admin/inbound -H 'content-type: application/json' -d '{"from": "+919812345678", "text": "Hi"}'
Logs: ${path.relative(process.cwd(), USER_FOLDER)}/n8n-server.log, sandbox.log
Press Ctrl-C to stop everything.`);
	});
}

runStartScript(main);
