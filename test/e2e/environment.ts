import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { loadExamples } from '../../scripts/lib/examples';
import { startLocalStack, type LocalStack } from '../../scripts/lib/local-stack';
import { SandboxAdmin } from '../../scripts/lib/sandbox-admin';
import { ensureN8nInstalled } from '../../scripts/n8n/install';
import { N8N_VERSION } from '../../scripts/n8n/paths';
import type { OwnerAccount } from '../../scripts/n8n/rest-client';
import type { E2eContext } from './context';
import { CheckRunner } from './harness';
import { BARE_TRIGGER_PACKAGE_DIR } from './trigger-burst.e2e';

export interface E2eEnvironmentOptions {
	/** Names the run folder: `n8n-nodes-messaging-<name>-…` in the system's temporary folder. */
	name: string;
	/** Where the editor check writes its screenshots; the run folder when unset. */
	screenshotsDir?: string;
}

export interface E2eEnvironment {
	context: E2eContext;
	stack: LocalStack;
	runner: CheckRunner;
}

/** The n8n owner a check script signs in as, named after the script. */
function ownerFor(name: string): OwnerAccount {
	const title = name.charAt(0).toUpperCase() + name.slice(1);
	return {
		email: `${name}@example.com`,
		password: `${title}-check-2026`,
		firstName: title,
		lastName: 'Owner',
	};
}

function elapsed(since: number): string {
	return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

function contextOf(
	stack: LocalStack,
	userFolder: string,
	owner: OwnerAccount,
	options: E2eEnvironmentOptions,
) {
	const { n8n, sandbox, rest, cli } = stack;
	if (!sandbox) throw new Error('the e2e runs against the sandbox');
	const context: E2eContext = {
		n8nBaseUrl: n8n.baseUrl,
		cli,
		rest,
		owner,
		sandboxBaseUrl: sandbox.baseUrl,
		sandbox: new SandboxAdmin(sandbox.baseUrl),
		examples: loadExamples(),
		installedPackageDir: path.join(
			userFolder,
			'.n8n',
			'nodes',
			'node_modules',
			'n8n-nodes-messaging',
		),
		screenshotsDir: options.screenshotsDir ?? path.dirname(userFolder),
		databaseFile: path.join(userFolder, '.n8n', 'database.sqlite'),
		restartN8n: (restart) => stack.restartN8n(restart),
	};
	return context;
}

/**
 * The one set-up of every real-n8n check script: n8n 2.40.7 with the freshly packed package (and the burst
 * check's yardstick trigger) installed as community nodes, the sandbox, the model double and the examples, in a
 * fresh run folder outside the repository (Node resolves modules up the tree, and the repo's own node_modules
 * would hide a dependency the installed package fails to bring). Logs stay when a check failed. Returns the exit code.
 */
export async function runInE2eEnvironment(
	options: E2eEnvironmentOptions,
	checks: (environment: E2eEnvironment) => Promise<void>,
): Promise<number> {
	const started = Date.now();
	const log = (line: string) => console.log(`› ${line}`);
	await ensureN8nInstalled(log);
	log(`n8n ${N8N_VERSION}`);
	const runDir = fs.mkdtempSync(path.join(os.tmpdir(), `n8n-nodes-messaging-${options.name}-`));
	const userFolder = path.join(runDir, 'n8n');
	log(`Run folder ${runDir}`);
	const owner = ownerFor(options.name);
	const runner = new CheckRunner();
	let stack: LocalStack | undefined;
	try {
		const packDir = path.join(runDir, 'pack');
		// `npm run test:compat` builds once for every n8n it checks at once: a build each would rewrite dist/ under
		// the others. Copied in, the packed package is reused when the sources still match it.
		const prebuilt = process.env.MESSAGING_PACKED_FROM;
		if (prebuilt) fs.cpSync(prebuilt, packDir, { recursive: true });
		stack = await startLocalStack({
			userFolder,
			packDir,
			reusePack: Boolean(prebuilt),
			examples: loadExamples(),
			fixturePackages: [BARE_TRIGGER_PACKAGE_DIR],
			owner,
			log,
		});
		console.log('');
		await checks({ context: contextOf(stack, userFolder, owner, options), stack, runner });
	} catch (error) {
		await runner.check('the e2e environment starts', () => {
			throw error;
		});
	} finally {
		await stack?.stop();
	}
	if (runner.hasFailures)
		console.log(`\nLogs kept in ${runDir} (n8n-server.log, cli/n8n-cli.log, sandbox.log)`);
	else fs.rmSync(runDir, { recursive: true, force: true });
	console.log(`\n${options.name} finished in ${elapsed(started)}`);
	console.log(runner.summary());
	return runner.hasFailures ? 1 : 0;
}
