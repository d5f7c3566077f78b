/**
 * `npm run test:e2e`: the packed package installed as a community node in a real n8n 2.40.7, the
 * examples executed by n8n's CLI against the sandbox, the delivery-event loop, and the editor in Chromium.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { checkDeliveryEvents } from '../../test/e2e/delivery-events.e2e';
import { checkEditor } from '../../test/e2e/editor.e2e';
import { checkExamples } from '../../test/e2e/examples.e2e';
import { CheckRunner } from '../../test/e2e/harness';
import { checkInstalledPackage } from '../../test/e2e/installed-package.e2e';
import type { E2eContext } from '../../test/e2e/context';
import { messagingApiCredential, signingSecretCredential } from '../lib/credentials';
import { activateTriggerExamples, importExamples } from '../lib/example-import';
import { loadExamples } from '../lib/examples';
import { findFreePort } from '../lib/ports';
import { SandboxAdmin } from '../lib/sandbox-admin';
import { SANDBOX_API_KEY, SANDBOX_SIGNING_SECRET, startSandboxServer, type SandboxServer } from '../lib/sandbox-server';
import { importCredentials } from '../n8n/cli';
import { ensureN8nInstalled } from '../n8n/install';
import { buildAndPack, installPackageIntoUserFolder } from '../n8n/package';
import { REPO_ROOT } from '../n8n/paths';
import { N8nRestClient } from '../n8n/rest-client';
import { startN8nServer, type N8nServer } from '../n8n/server';

const SCREENSHOTS_DIR = path.join(REPO_ROOT, 'docs', 'screenshots');

function elapsed(since: number): string {
	return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

async function main(): Promise<number> {
	const started = Date.now();
	await ensureN8nInstalled((line) => console.log(`› ${line}`));

	// Outside the repository on purpose: Node resolves modules up the directory tree, and the repo's own
	// node_modules would hide a dependency the installed package fails to bring.
	const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-nodes-messaging-e2e-'));
	const userFolder = path.join(runDir, 'n8n');
	console.log(`› Run folder ${runDir}`);

	let phase = Date.now();
	const packed = await buildAndPack(path.join(runDir, 'pack'), { reuseIfUnchanged: false });
	await installPackageIntoUserFolder(userFolder, packed);
	console.log(`› Built, packed ${path.basename(packed.tarball)} and installed it with npm in .n8n/nodes (${elapsed(phase)})`);

	let sandbox: SandboxServer | undefined;
	let n8n: N8nServer | undefined;
	const runner = new CheckRunner();
	try {
		phase = Date.now();
		sandbox = await startSandboxServer(await findFreePort(), path.join(runDir, 'sandbox.log'));
		const admin = new SandboxAdmin(sandbox.baseUrl);
		const n8nPort = await findFreePort();
		const origin = `http://127.0.0.1:${n8nPort}`;
		const cli = { userFolder, port: n8nPort };
		const examples = loadExamples();
		await importCredentials(cli, [messagingApiCredential(sandbox.baseUrl, SANDBOX_API_KEY), signingSecretCredential(SANDBOX_SIGNING_SECRET)]);
		await importExamples(cli, examples, { origin, keepUnchanged: false });
		console.log(`› Sandbox up, credentials and ${examples.length} examples imported with the n8n CLI (${elapsed(phase)})`);

		phase = Date.now();
		n8n = await startN8nServer({ userFolder, port: n8nPort, brokerPort: await findFreePort() });
		const rest = new N8nRestClient(n8n.baseUrl);
		const owner = { email: 'e2e@example.com', password: 'E2e-check-2026', firstName: 'E2E', lastName: 'Owner' };
		await rest.setupOwnerOrLogin(owner);
		const activated = await activateTriggerExamples(rest, examples);
		console.log(`› n8n ${n8n.baseUrl} up, owner set up, activated: ${activated.join(', ') || 'none'} (${elapsed(phase)})\n`);

		const context: E2eContext = {
			n8nBaseUrl: n8n.baseUrl,
			cli,
			rest,
			owner,
			sandboxBaseUrl: sandbox.baseUrl,
			sandbox: admin,
			examples,
			installedPackageDir: path.join(userFolder, '.n8n', 'nodes', 'node_modules', 'n8n-nodes-messaging'),
			screenshotsDir: SCREENSHOTS_DIR,
		};

		console.log('Installed package');
		await checkInstalledPackage(context, runner);
		console.log('Examples through n8n execute');
		phase = Date.now();
		const acknowledgements = await checkExamples(context, runner);
		console.log(`  (${elapsed(phase)})\nDelivery events`);
		phase = Date.now();
		await checkDeliveryEvents(context, runner, acknowledgements.get('exSmsOrderDlt001'));
		console.log(`  (${elapsed(phase)})\nEditor in Chromium`);
		phase = Date.now();
		await checkEditor(context, runner);
		console.log(`  (${elapsed(phase)})`);
	} catch (error) {
		await runner.check('the e2e environment starts', () => {
			throw error;
		});
	} finally {
		await n8n?.stop();
		await sandbox?.stop();
	}

	if (runner.hasFailures) {
		console.log(`\nLogs kept in ${runDir} (n8n-server.log, n8n-cli.log, sandbox.log)`);
	} else {
		fs.rmSync(runDir, { recursive: true, force: true });
	}
	console.log(`\ne2e finished in ${elapsed(started)}`);
	console.log(runner.summary());
	return runner.hasFailures ? 1 : 0;
}

main().then(
	(code) => process.exit(code),
	(error: Error) => {
		console.error(error.stack ?? error.message);
		console.log('0 passed, 1 failed');
		process.exit(1);
	},
);
