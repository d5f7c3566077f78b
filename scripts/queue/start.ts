/**
 * `npm run start:queue`: the package in n8n's queue mode on this machine: PostgreSQL and Redis (Debian packages),
 * an n8n main, two workers and a webhook process, and the sandbox. Data in .cache/queue; Ctrl-C stops everything.
 */
import path from 'node:path';

import { loadExamples } from '../lib/examples';
import { loadOrCreateOwnerAccount } from '../lib/owner-account';
import { assertPortFree, readPortFromEnv } from '../lib/ports';
import { runStartScript, StopSwitch } from '../lib/process-group';
import { SANDBOX_API_KEY } from '../lib/sandbox-server';
import { ensureN8nInstalled } from '../n8n/install';
import { CACHE_DIR } from '../n8n/paths';
import { startQueueStack, type QueueStack } from './queue-stack';

const QUEUE_DIR = path.join(CACHE_DIR, 'queue');
const USER_FOLDER = path.join(QUEUE_DIR, 'n8n');

async function main(): Promise<void> {
	const started = Date.now();
	const mainPort = readPortFromEnv('N8N_PORT', 5678);
	await assertPortFree(mainPort, 'the n8n editor', 'N8N_PORT');
	const log = (line: string) => console.log(`› ${line}`);
	await ensureN8nInstalled(log);

	let stack: QueueStack | undefined;
	const stopSwitch = new StopSwitch(
		'n8n (main, workers, webhook process), the sandbox, PostgreSQL and Redis',
		async () => {
			await stack?.stop();
		},
	);

	await stopSwitch.startOrStopAll(async () => {
		const owner = loadOrCreateOwnerAccount(USER_FOLDER);
		stack = await startQueueStack({
			userFolder: USER_FOLDER,
			servicesDir: path.join(QUEUE_DIR, 'services'),
			packDir: path.join(QUEUE_DIR, 'pack'),
			reusePack: true,
			examples: loadExamples(),
			owner,
			workers: 2,
			workerConcurrency: 5,
			mainPort,
			log,
		});
		for (const server of [stack.main, stack.webhook, ...stack.workers])
			stopSwitch.stopAllWhenExited('An n8n process', server);
		const { services } = stack;
		console.log(`
Queue mode ready in ${Math.round((Date.now() - started) / 1000)} s.

  n8n main (editor, API, webhooks)  ${stack.main.baseUrl}   login ${owner.email} / ${owner.password}
  n8n webhook process               ${stack.webhook.baseUrl}   (production webhooks only: /webhook/…)
  n8n workers (concurrency 5)       ${stack.workers.map((worker) => `health ${worker.baseUrl}/healthz`).join(', ')}
  Redis (the queue)                 ${services.redis.host}:${services.redis.port}
  PostgreSQL (the database)         ${services.postgres.host}:${services.postgres.port}/${services.postgres.database}
  sandbox API                       ${stack.sandbox.baseUrl}   (API key ${SANDBOX_API_KEY})
  model double                      ${stack.modelDouble.openAiBaseUrl}   (the "OpenAI (local model double)" credential)

Executions started in the editor, by webhooks or by triggers run on the workers. Logs and data: ${path.relative(process.cwd(), QUEUE_DIR)}/
Press Ctrl-C to stop everything.`);
	});
}

runStartScript(main);
