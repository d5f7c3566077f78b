import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { importCredentials, type N8nCliTarget } from '../n8n/cli';
import type { N8nInstanceConfig, QueueBackend } from '../n8n/environment';
import { buildAndPack, installFixturePackage, installPackageIntoUserFolder } from '../n8n/package';
import { N8nRestClient, type OwnerAccount } from '../n8n/rest-client';
import { startN8nServer, type N8nProcessRole, type N8nServer } from '../n8n/server';
import {
	messagingApiCredential,
	openAiCredential,
	signingSecretCredential,
} from '../lib/credentials';
import { startModelDouble, type ModelDouble } from '../model-double/server';
import { activateTriggerExamples, importExamples } from '../lib/example-import';
import type { Example } from '../lib/examples';
import { findFreePort, LOOPBACK } from '../lib/ports';
import {
	SANDBOX_API_KEY,
	SANDBOX_SIGNING_SECRET,
	startSandboxServer,
	type SandboxServer,
} from '../lib/sandbox-server';
import { ensureQueueServices } from './debian-packages';
import { startQueueServices, type QueueServices } from './services';

export interface QueueStackOptions {
	/** The N8N_USER_FOLDER every n8n process shares: the package in `.n8n/nodes`, the logs. */
	userFolder: string;
	/** Redis and PostgreSQL data. Under the repository's `.cache/`: Debian's `postgres` user must be able to reach it. */
	servicesDir: string;
	packDir: string;
	reusePack: boolean;
	examples: Example[];
	owner: OwnerAccount;
	workers: number;
	workerConcurrency: number;
	fixturePackages?: string[];
	/** Webhook processes (1 unless told): a load balancer in front spreads deliveries over them. */
	webhookProcesses?: number;
	/** n8n settings for every process, e.g. N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE (N8N_* is not inherited from the shell). */
	n8nEnv?: NodeJS.ProcessEnv;
	/** Ports for the main, e.g. 5678 for `npm run start:queue`; free ports otherwise. */
	mainPort?: number;
	log: (line: string) => void;
}

export interface QueueProcess {
	role: N8nProcessRole;
	server: N8nServer;
}

/** n8n in queue mode: a main, workers and a webhook process over one Postgres and one Redis, and the sandbox. */
export interface QueueStack {
	sandbox: SandboxServer;
	/** The OpenAI credential's endpoint, so the AI assistant example answers in queue mode too. */
	modelDouble: ModelDouble;
	services: QueueServices;
	main: N8nServer;
	/** The first webhook process. */
	webhook: N8nServer;
	webhooks: N8nServer[];
	workers: N8nServer[];
	rest: N8nRestClient;
	cli: N8nCliTarget;
	/** Stops every n8n process and starts them again on the same ports (the database and queue stay up). */
	restartN8n(): Promise<void>;
	/** SIGKILLs one worker and starts a new one on its port, as a supervisor would after an OOM kill. */
	killWorker(index: number): Promise<void>;
	/** Stops one webhook process (SIGKILL stands for a crash) and starts it again on its port. */
	restartWebhook(index: number, signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
	stop(): Promise<void>;
}

/** One key for every process, kept beside the data: restarting the stack must still decrypt the credentials. */
function encryptionKeyIn(servicesDir: string): string {
	const file = path.join(servicesDir, 'encryption-key');
	if (!fs.existsSync(file))
		fs.writeFileSync(file, randomBytes(24).toString('hex'), { mode: 0o600 });
	return fs.readFileSync(file, 'utf8').trim();
}

async function startRole(
	base: N8nInstanceConfig,
	role: N8nProcessRole,
	port: number,
	options: Pick<QueueStackOptions, 'workerConcurrency' | 'n8nEnv'>,
): Promise<N8nServer> {
	const args = role === 'worker' ? [`--concurrency=${options.workerConcurrency}`] : [];
	const config = { ...base, port, brokerPort: await findFreePort() };
	return await startN8nServer(config, options.n8nEnv ?? {}, role, args);
}

export async function startQueueStack(options: QueueStackOptions): Promise<QueueStack> {
	const binaries = await ensureQueueServices(options.log);
	const packed = await buildAndPack(options.packDir, { reuseIfUnchanged: options.reusePack });
	await installPackageIntoUserFolder(options.userFolder, packed);
	for (const fixture of options.fixturePackages ?? [])
		await installFixturePackage(options.userFolder, fixture, options.packDir);
	options.log(
		`Package ${path.basename(packed.tarball)} installed in ${options.userFolder}/.n8n/nodes (shared by every n8n process)`,
	);

	const services = await startQueueServices(binaries, options.servicesDir);
	const queue: QueueBackend = { ...services, encryptionKey: encryptionKeyIn(options.servicesDir) };
	options.log(
		`Redis ${services.redis.host}:${services.redis.port}, PostgreSQL ${services.postgres.host}:${services.postgres.port}/${services.postgres.database} (data in ${options.servicesDir}${services.postgres.dataDir.startsWith(options.servicesDir) ? '' : `; the database in ${services.postgres.dataDir}, which the postgres user can reach`})`,
	);
	const ports = {
		main: options.mainPort ?? (await findFreePort()),
		webhooks: await Promise.all(
			Array.from({ length: options.webhookProcesses ?? 1 }, findFreePort),
		),
		workers: await Promise.all(Array.from({ length: options.workers }, findFreePort)),
	};
	const base = { userFolder: options.userFolder, port: ports.main, brokerPort: 0, queue };
	const cli: N8nCliTarget = { userFolder: options.userFolder, port: ports.main, queue };
	let sandbox: SandboxServer | undefined;
	let modelDouble: ModelDouble | undefined;
	let processes: N8nServer[] = [];
	const stopN8n = async () => {
		await Promise.all(processes.map((server) => server.stop()));
		processes = [];
	};
	const startN8n = async () => {
		processes.push(await startRole(base, 'start', ports.main, options));
		const others = await Promise.all([
			...ports.webhooks.map((port) => startRole(base, 'webhook', port, options)),
			...ports.workers.map((port) => startRole(base, 'worker', port, options)),
		]);
		processes.push(...others);
	};
	const stop = async () => {
		await stopN8n();
		await sandbox?.stop();
		await modelDouble?.stop();
		await services.stop();
	};
	try {
		sandbox = await startSandboxServer(
			await findFreePort(),
			path.join(options.userFolder, 'sandbox.log'),
		);
		modelDouble = await startModelDouble(await findFreePort());
		await importCredentials(cli, [
			messagingApiCredential(sandbox.baseUrl, SANDBOX_API_KEY),
			signingSecretCredential(SANDBOX_SIGNING_SECRET),
			openAiCredential(modelDouble.openAiBaseUrl),
		]);
		await importExamples(cli, options.examples, {
			origin: `http://${LOOPBACK}:${ports.main}`,
			keepUnchanged: true,
		});
		await startN8n();
		const rest = new N8nRestClient(processes[0].baseUrl);
		await rest.setupOwnerOrLogin(options.owner);
		await activateTriggerExamples(rest, options.examples);
		const stack: QueueStack = {
			sandbox,
			modelDouble,
			services,
			rest,
			cli,
			get main() {
				return processes[0];
			},
			get webhook() {
				return processes[1];
			},
			get webhooks() {
				return processes.slice(1, 1 + ports.webhooks.length);
			},
			get workers() {
				return processes.slice(1 + ports.webhooks.length);
			},
			async restartWebhook(index, signal) {
				await processes[1 + index].stop(signal);
				processes[1 + index] = await startRole(base, 'webhook', ports.webhooks[index], options);
			},
			async killWorker(index) {
				const slot = 1 + ports.webhooks.length + index;
				await processes[slot].kill();
				processes[slot] = await startRole(base, 'worker', ports.workers[index], options);
			},
			async restartN8n() {
				await stopN8n();
				await startN8n();
				await rest.setupOwnerOrLogin(options.owner);
			},
			stop,
		};
		return stack;
	} catch (error) {
		await stop();
		throw error;
	}
}
