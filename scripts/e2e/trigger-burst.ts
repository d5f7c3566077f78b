/**
 * `npm run test:burst`: only the Messaging Trigger burst of the e2e, in a fresh n8n with the packed package:
 * the figures in the README's "Under a burst" come from here, then the retries after n8n restarts. Options:
 * BURST_EVENTS, BURST_CONCURRENCY.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { CheckRunner, runCheckScript } from '../../test/e2e/harness';
import {
	BARE_TRIGGER_PACKAGE_DIR,
	checkTriggerBurst,
	DEFAULT_BURST,
} from '../../test/e2e/trigger-burst.e2e';
import type { E2eContext } from '../../test/e2e/context';
import { checkTriggerRestart } from '../../test/e2e/trigger-restart.e2e';
import { loadExamples } from '../lib/examples';
import { startLocalStack, type LocalStack } from '../lib/local-stack';
import { SandboxAdmin } from '../lib/sandbox-admin';
import { ensureN8nInstalled } from '../n8n/install';

async function main(): Promise<number> {
	await ensureN8nInstalled((line) => console.log(`› ${line}`));
	const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-nodes-messaging-burst-'));
	const userFolder = path.join(runDir, 'n8n');
	const owner = {
		email: 'burst@example.com',
		password: 'Burst-check-2026',
		firstName: 'Burst',
		lastName: 'Owner',
	};
	const runner = new CheckRunner();
	let stack: LocalStack | undefined;
	try {
		stack = await startLocalStack({
			userFolder,
			packDir: path.join(runDir, 'pack'),
			reusePack: false,
			examples: loadExamples(),
			fixturePackages: [BARE_TRIGGER_PACKAGE_DIR],
			owner,
			log: (line) => console.log(`› ${line}`),
		});
		const settings = {
			...DEFAULT_BURST,
			events: Number(process.env.BURST_EVENTS ?? DEFAULT_BURST.events),
			concurrency: Number(process.env.BURST_CONCURRENCY ?? DEFAULT_BURST.concurrency),
		};
		const started = stack;
		const context: E2eContext = {
			n8nBaseUrl: started.n8n.baseUrl,
			cli: started.cli,
			rest: started.rest,
			owner,
			sandboxBaseUrl: started.sandbox!.baseUrl,
			sandbox: new SandboxAdmin(started.sandbox!.baseUrl),
			examples: loadExamples(),
			installedPackageDir: path.join(
				userFolder,
				'.n8n',
				'nodes',
				'node_modules',
				'n8n-nodes-messaging',
			),
			screenshotsDir: runDir,
			restartN8n: () => started.restartN8n(),
		};
		await checkTriggerBurst(context, runner, settings);
		await checkTriggerRestart(context, runner);
	} finally {
		await stack?.stop();
	}
	console.log(runner.hasFailures ? `Logs kept in ${runDir}` : '');
	if (!runner.hasFailures) fs.rmSync(runDir, { recursive: true, force: true });
	console.log(runner.summary());
	return runner.hasFailures ? 1 : 0;
}

runCheckScript(main);
