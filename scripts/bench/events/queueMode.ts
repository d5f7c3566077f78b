import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { OwnerAccount } from '../../n8n/rest-client';
import { CACHE_DIR } from '../../n8n/paths';
import { startQueueStack, type QueueStack } from '../../queue/queue-stack';
import type { EventRecorder } from '../../../test/e2e/event-recorder';
import { waitUntilRegistered } from '../../../test/e2e/trigger-burst.e2e';
import { MAX_HELD_DELIVERIES } from '../../../nodes/MessagingTrigger/eventBatches';
import { eventsScale, SETTINGS } from './cases';
import { killMidBurst, type KillFigures } from './killMidBurst';
import { measureCase, urlAt, type CaseFigures, type Load } from './measureCase';
import { createEventTarget, type EventTarget } from './workflows';

export interface QueueFigures {
	/** The same load through one webhook process, then spread over two. */
	oneWebhook: CaseFigures;
	twoWebhooks: CaseFigures;
	kill: KillFigures;
}

const QUEUE_EVENTS = 6_000;
const WORKERS = 1;
const WORKER_CONCURRENCY = 10;

async function waitUntilRegisteredAt(target: EventTarget, origins: string[]): Promise<void> {
	for (const origin of origins)
		await waitUntilRegistered({ ...target, url: urlAt(target, origin) });
}

/**
 * More deliveries open than one webhook process holds (past its cap it answers 503): what a second process can
 * add. With fewer the sender is the limit, not n8n: each delivery is held until its batch's execution exists, so
 * open ÷ hold time is the rate, and a batch spread over two processes fills, and is held, twice as long (200 open:
 * 154.5/s on one process, 152.4/s on two).
 */
const QUEUE_OPEN_REQUESTS = 2 * MAX_HELD_DELIVERIES;

async function measureOnStack(
	stack: QueueStack,
	recorder: EventRecorder,
	stamp: string,
	log: (line: string) => void,
): Promise<QueueFigures> {
	const target = await createEventTarget(stack.rest, recorder, 'batching', 'queue mode');
	const origins = stack.webhooks.map((server) => server.baseUrl);
	await waitUntilRegisteredAt(target, origins);
	const load: Load = {
		events: Math.max(400, Math.round(QUEUE_EVENTS * eventsScale())),
		perPost: 1,
		openRequests: QUEUE_OPEN_REQUESTS,
	};
	await measureCase(stack.rest, recorder, target, { ...load, events: 200 }, `${stamp}-q-warm`, {
		origins,
	});
	const oneWebhook = await measureCase(stack.rest, recorder, target, load, `${stamp}-q-one`, {
		origins: origins.slice(0, 1),
	});
	log(`queue mode, one webhook process: ${oneWebhook.eventsPerSecond.toFixed(1)} events run/s`);
	const twoWebhooks = await measureCase(stack.rest, recorder, target, load, `${stamp}-q-two`, {
		origins,
	});
	log(`queue mode, two webhook processes: ${twoWebhooks.eventsPerSecond.toFixed(1)} events run/s`);
	const restart = async () => {
		await stack.restartWebhook(0, 'SIGKILL');
		await waitUntilRegisteredAt(target, origins.slice(0, 1));
	};
	const kill = await killMidBurst(
		stack.rest,
		recorder,
		target,
		load,
		{ what: 'queue mode: a webhook process SIGKILL', restart, origins },
		`${stamp}-q-kill`,
	);
	log(`queue mode, a webhook process killed: ${kill.lost} lost, ${kill.runTwice} run twice`);
	return { oneWebhook, twoWebhooks, kill };
}

/**
 * n8n in queue mode (main, two webhook processes, a worker, Postgres, Redis) under lazy acquire: the batching
 * trigger's load through one webhook process, then spread over two; then one of them killed mid-burst while the
 * sender's load balancer keeps sending to both.
 */
export async function measureQueueMode(
	recorder: EventRecorder,
	owner: OwnerAccount,
	stamp: string,
	log: (line: string) => void,
): Promise<QueueFigures> {
	const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-nodes-messaging-bench-queue-'));
	// Short: PostgreSQL's socket path below it must stay within 107 bytes.
	const servicesDir = path.join(CACHE_DIR, `qb-${stamp}`);
	let stack: QueueStack | undefined;
	try {
		stack = await startQueueStack({
			userFolder: path.join(runDir, 'n8n'),
			servicesDir,
			packDir: path.join(CACHE_DIR, 'bench-pack'),
			reusePack: true,
			examples: [],
			owner,
			workers: WORKERS,
			workerConcurrency: WORKER_CONCURRENCY,
			webhookProcesses: 2,
			n8nEnv: SETTINGS.find((setting) => setting.key === 'lazy')!.env,
			fixturePackages: [],
			log,
		});
		const figures = await measureOnStack(stack, recorder, stamp, log);
		const postgresDataDir = stack.services.postgres.dataDir;
		await stack.stop();
		for (const dir of [runDir, servicesDir, postgresDataDir])
			fs.rmSync(dir, { recursive: true, force: true });
		return figures;
	} catch (error) {
		await stack?.stop();
		throw new Error(`${(error as Error).message}\nqueue mode's logs kept in ${runDir}`);
	}
}
