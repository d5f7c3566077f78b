import path from 'node:path';

import { cliWithOwnDatabase, importCredentials, type N8nCliTarget } from '../n8n/cli';
import {
	buildAndPack,
	installFixturePackage,
	installPackageIntoUserFolder,
	type PackedPackage,
} from '../n8n/package';
import { N8nRestClient, type OwnerAccount } from '../n8n/rest-client';
import { startN8nServer, type N8nServer } from '../n8n/server';
import { startModelDouble, type ModelDouble } from '../model-double/server';
import { messagingApiCredential, openAiCredential, signingSecretCredential } from './credentials';
import { activateTriggerExamples, importExamples } from './example-import';
import type { Example } from './examples';
import { findFreePort, LOOPBACK } from './ports';
import {
	SANDBOX_API_KEY,
	SANDBOX_SIGNING_SECRET,
	startSandboxServer,
	type SandboxServer,
} from './sandbox-server';

export interface LocalStackOptions {
	/** The N8N_USER_FOLDER; the package is installed into its `.n8n/nodes`. */
	userFolder: string;
	/** Where `npm pack` writes the tarball. */
	packDir: string;
	reusePack: boolean;
	examples: Example[];
	owner: OwnerAccount;
	/** Without it the sandbox is started and the credential points at it. */
	provider?: { baseUrl: string; apiKey: string };
	/** Test fixture packages (folders) installed beside ours, e.g. the burst check's yardstick trigger. */
	fixturePackages?: string[];
	/** n8n settings for this stack, e.g. N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE (N8N_* is not inherited from the shell). */
	n8nEnv?: NodeJS.ProcessEnv;
	log: (line: string) => void;
}

export interface RestartOptions {
	/** SIGTERM (graceful) unless told; SIGKILL stands for a crash. */
	signal?: 'SIGTERM' | 'SIGKILL';
	/** Replaces the stack's n8n settings from this start on. */
	n8nEnv?: NodeJS.ProcessEnv;
	/** Runs once n8n has exited and before it starts again, e.g. to change its database as a crash would have left it. */
	whileStopped?: () => Promise<void>;
}

/** The sandbox (unless a real provider is given) and an n8n with the packed package, examples imported and active. */
export interface LocalStack {
	packed: PackedPackage;
	sandbox?: SandboxServer;
	/** The OpenAI-compatible model the AI examples' credential points at. */
	modelDouble: ModelDouble;
	n8n: N8nServer;
	rest: N8nRestClient;
	cli: N8nCliTarget;
	/** Stops n8n and starts it again on the same port and database, as an operator restarting it would. */
	restartN8n(options?: RestartOptions): Promise<void>;
	stop(): Promise<void>;
}

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
	let started = Date.now();
	const seconds = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
	const packed = await buildAndPack(options.packDir, { reuseIfUnchanged: options.reusePack });
	const install = await installPackageIntoUserFolder(options.userFolder, packed);
	options.log(
		`${packed.reused ? 'Reused the packed' : 'Built and packed'} ${path.basename(packed.tarball)}, ${install === 'installed' ? 'installed it with npm' : 'already installed'} in .n8n/nodes (${seconds()})`,
	);
	for (const fixture of options.fixturePackages ?? []) {
		await installFixturePackage(options.userFolder, fixture, options.packDir);
		options.log(
			`Installed the test fixture package ${path.basename(fixture)} beside it (${seconds()})`,
		);
	}

	started = Date.now();
	let sandbox: SandboxServer | undefined;
	let n8n: N8nServer | undefined;
	let modelDouble: ModelDouble | undefined;
	const stop = async () => {
		await n8n?.stop();
		await sandbox?.stop();
		await modelDouble?.stop();
	};
	try {
		const n8nPort = await findFreePort();
		const setupCli = { userFolder: options.userFolder, port: n8nPort };
		if (!options.provider)
			sandbox = await startSandboxServer(
				await findFreePort(),
				path.join(options.userFolder, 'sandbox.log'),
			);
		const api = options.provider ?? { baseUrl: sandbox!.baseUrl, apiKey: SANDBOX_API_KEY };
		modelDouble = await startModelDouble(await findFreePort());
		await importCredentials(setupCli, [
			messagingApiCredential(api.baseUrl, api.apiKey),
			signingSecretCredential(SANDBOX_SIGNING_SECRET),
			openAiCredential(modelDouble.openAiBaseUrl),
		]);
		await importExamples(setupCli, options.examples, {
			origin: `http://${LOOPBACK}:${n8nPort}`,
			keepUnchanged: false,
		});
		options.log(
			`${sandbox ? `Sandbox at ${sandbox.baseUrl}; c` : 'C'}redential and ${options.examples.length} examples imported with the n8n CLI (${seconds()})`,
		);

		const cli = cliWithOwnDatabase(setupCli);
		started = Date.now();
		const n8nConfig = {
			userFolder: options.userFolder,
			port: n8nPort,
			brokerPort: await findFreePort(),
		};
		let n8nEnv = options.n8nEnv ?? {};
		n8n = await startN8nServer(n8nConfig, n8nEnv);
		const rest = new N8nRestClient(n8n.baseUrl);
		await rest.setupOwnerOrLogin(options.owner);
		const activated = await activateTriggerExamples(rest, options.examples);
		options.log(
			`n8n ${n8n.baseUrl} running${activated.length ? `, active: ${activated.join(', ')}` : ''} (${seconds()})`,
		);
		const restartN8n = async (restart: RestartOptions = {}) => {
			await n8n?.stop(restart.signal);
			await restart.whileStopped?.();
			n8nEnv = restart.n8nEnv ?? n8nEnv;
			n8n = await startN8nServer(n8nConfig, n8nEnv);
			stack.n8n = n8n;
			await rest.setupOwnerOrLogin(options.owner);
		};
		const stack: LocalStack = { packed, sandbox, modelDouble, n8n, rest, cli, restartN8n, stop };
		return stack;
	} catch (error) {
		await stop();
		throw error;
	}
}
