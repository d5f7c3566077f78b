/**
 * `npm run test:e2e`: the packed package installed as a community node in a real n8n 2.40.7, the
 * examples executed by n8n's CLI against the sandbox, the delivery-event loop, inbound messages answered, and the
 * editor in Chromium.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { checkDeliveryEvents } from '../../test/e2e/delivery-events.e2e';
import { checkEditor } from '../../test/e2e/editor.e2e';
import { checkErrorOutput } from '../../test/e2e/error-output.e2e';
import { checkExamples } from '../../test/e2e/examples.e2e';
import { CheckRunner, runCheckScript } from '../../test/e2e/harness';
import { checkInboundMessages } from '../../test/e2e/inbound-messages.e2e';
import { checkInstalledPackage } from '../../test/e2e/installed-package.e2e';
import { checkSendAndWait } from '../../test/e2e/send-and-wait.e2e';
import { BARE_TRIGGER_PACKAGE_DIR, checkTriggerBurst } from '../../test/e2e/trigger-burst.e2e';
import type { E2eContext } from '../../test/e2e/context';
import { loadExamples } from '../lib/examples';
import { startLocalStack, type LocalStack } from '../lib/local-stack';
import { SandboxAdmin } from '../lib/sandbox-admin';
import { ensureN8nInstalled } from '../n8n/install';
import { REPO_ROOT } from '../n8n/paths';

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

	let stack: LocalStack | undefined;
	const runner = new CheckRunner();
	try {
		const examples = loadExamples();
		const owner = {
			email: 'e2e@example.com',
			password: 'E2e-check-2026',
			firstName: 'E2E',
			lastName: 'Owner',
		};
		stack = await startLocalStack({
			userFolder,
			packDir: path.join(runDir, 'pack'),
			reusePack: false,
			examples,
			fixturePackages: [BARE_TRIGGER_PACKAGE_DIR],
			owner,
			log: (line) => console.log(`› ${line}`),
		});
		const { n8n, sandbox, rest, cli } = stack;
		if (!sandbox) throw new Error('the e2e runs against the sandbox');
		console.log('');

		const context: E2eContext = {
			n8nBaseUrl: n8n.baseUrl,
			cli,
			rest,
			owner,
			sandboxBaseUrl: sandbox.baseUrl,
			sandbox: new SandboxAdmin(sandbox.baseUrl),
			examples,
			installedPackageDir: path.join(
				userFolder,
				'.n8n',
				'nodes',
				'node_modules',
				'n8n-nodes-messaging',
			),
			screenshotsDir: SCREENSHOTS_DIR,
		};

		console.log('Installed package');
		await checkInstalledPackage(context, runner);
		console.log('Examples through n8n execute');
		let phase = Date.now();
		const acknowledgements = await checkExamples(context, runner);
		console.log(`  (${elapsed(phase)})\nDelivery events`);
		phase = Date.now();
		await checkDeliveryEvents(context, runner, acknowledgements.get('exSmsOrderDlt001'));
		console.log(`  (${elapsed(phase)})\nInbound WhatsApp messages`);
		phase = Date.now();
		await checkInboundMessages(context, runner, acknowledgements.get('exWaLeadFollow01'));
		console.log(`  (${elapsed(phase)})\nError output`);
		phase = Date.now();
		await checkErrorOutput(context, runner);
		console.log(`  (${elapsed(phase)})\nSend and Wait`);
		phase = Date.now();
		await checkSendAndWait(context, runner);
		console.log(`  (${elapsed(phase)})\nEditor in Chromium`);
		phase = Date.now();
		await checkEditor(context, runner);
		console.log(`  (${elapsed(phase)})\nMessaging Trigger under a burst`);
		phase = Date.now();
		await checkTriggerBurst(context, runner);
		console.log(`  (${elapsed(phase)})`);
	} catch (error) {
		await runner.check('the e2e environment starts', () => {
			throw error;
		});
	} finally {
		await stack?.stop();
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

runCheckScript(main);
