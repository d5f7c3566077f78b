/**
 * `npm run test:queue`: the packed package in n8n's queue mode (a main, two workers and a webhook process over
 * PostgreSQL and Redis): campaigns sharing one account's rate across workers, and delivery events across processes.
 * Options: QUEUE_CAMPAIGN_MESSAGES, QUEUE_EVENTS, QUEUE_SEND_ONCE_MESSAGES; QUEUE_CHECKS=campaigns,events,send-once
 * runs only those (all by default); QUEUE_YARDSTICKS=1 runs the events' burst through n8n's Webhook node and the bare
 * community trigger too, and prints the rates side by side.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { CheckRunner, runCheckScript } from '../../test/e2e/harness';
import { checkQueueCampaigns, DEFAULT_CAMPAIGNS } from '../../test/e2e/queue-campaigns.e2e';
import { checkQueueEvents, DEFAULT_QUEUE_EVENTS } from '../../test/e2e/queue-events.e2e';
import { checkQueueSendOnce, DEFAULT_SEND_ONCE } from '../../test/e2e/queue-send-once.e2e';
import { BARE_TRIGGER_PACKAGE_DIR } from '../../test/e2e/trigger-burst.e2e';
import { SandboxAdmin } from '../lib/sandbox-admin';
import { ensureN8nInstalled } from '../n8n/install';
import { CACHE_DIR } from '../n8n/paths';
import { startQueueStack, type QueueStack } from './queue-stack';

async function main(): Promise<number> {
	const started = Date.now();
	const log = (line: string) => console.log(`› ${line}`);
	await ensureN8nInstalled(log);
	// The user folder outside the repository, as for the e2e: the repo's node_modules must not resolve for the package.
	const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-nodes-messaging-queue-'));
	const servicesDir = path.join(CACHE_DIR, 'queue-test', path.basename(runDir));
	const owner = {
		email: 'queue@example.com',
		password: 'Queue-check-2026',
		firstName: 'Queue',
		lastName: 'Owner',
	};
	const runner = new CheckRunner();
	let stack: QueueStack | undefined;
	let postgresDataDir: string | undefined;
	try {
		stack = await startQueueStack({
			userFolder: path.join(runDir, 'n8n'),
			servicesDir,
			packDir: path.join(runDir, 'pack'),
			reusePack: false,
			examples: [],
			owner,
			workers: 2,
			workerConcurrency: 5,
			fixturePackages: [BARE_TRIGGER_PACKAGE_DIR],
			log,
		});
		postgresDataDir = stack.services.postgres.dataDir;
		log(
			`Queue mode up in ${((Date.now() - started) / 1000).toFixed(1)} s: main ${stack.main.baseUrl}, webhook process ${stack.webhook.baseUrl}, workers ${stack.workers.map((worker) => worker.baseUrl).join(', ')}`,
		);
		const sandbox = new SandboxAdmin(stack.sandbox.baseUrl);
		const checks = (process.env.QUEUE_CHECKS ?? 'campaigns,events,send-once').split(',');
		if (checks.includes('campaigns')) {
			console.log('\nCampaigns across workers');
			const messagesEach = Number(
				process.env.QUEUE_CAMPAIGN_MESSAGES ?? DEFAULT_CAMPAIGNS.messagesEach,
			);
			await checkQueueCampaigns(stack, sandbox, runner, { ...DEFAULT_CAMPAIGNS, messagesEach });
		}
		if (checks.includes('events')) {
			console.log('\nDelivery events across processes');
			await checkQueueEvents(stack, runner, {
				...DEFAULT_QUEUE_EVENTS,
				events: Number(process.env.QUEUE_EVENTS ?? DEFAULT_QUEUE_EVENTS.events),
				yardsticks: process.env.QUEUE_YARDSTICKS === '1',
			});
		}
		if (checks.includes('send-once')) {
			console.log('\nSend once: a dead worker, a Retry');
			await checkQueueSendOnce(stack, sandbox, runner, {
				...DEFAULT_SEND_ONCE,
				messages: Number(process.env.QUEUE_SEND_ONCE_MESSAGES ?? DEFAULT_SEND_ONCE.messages),
			});
		}
	} finally {
		await stack?.stop();
	}
	if (runner.hasFailures) console.log(`Logs kept in ${runDir} and ${servicesDir}`);
	else {
		fs.rmSync(runDir, { recursive: true, force: true });
		fs.rmSync(servicesDir, { recursive: true, force: true });
		if (postgresDataDir) fs.rmSync(postgresDataDir, { recursive: true, force: true });
	}
	console.log(`queue mode finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
	console.log(runner.summary());
	return runner.hasFailures ? 1 : 0;
}

runCheckScript(main);
