import fs from 'node:fs';
import path from 'node:path';

import { LOOPBACK } from '../lib/ports';
import { lastLines, spawnInOwnGroup } from '../lib/process-group';
import { waitForHttpOk } from '../lib/wait-for-http';
import { n8nEnvironment, type N8nInstanceConfig } from './environment';
import { N8N_BIN, NODE24_BIN } from './paths';

export interface N8nServer {
	baseUrl: string;
	/** The n8n process itself (its task runners are its children, in its process group). */
	pid: number;
	config: N8nInstanceConfig;
	logFile: string;
	/** Resolves when the n8n process has exited, stopped or not. */
	exited: Promise<void>;
	/** SIGTERM (n8n's graceful shutdown) unless told; SIGKILL stands for a crash. */
	stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
	/** SIGKILL, no grace: a dead worker. */
	kill(): Promise<void>;
}

// A loaded 2-core machine (other n8n processes, builds) was seen taking 83 s and then more than 120 s.
const STARTUP_TIMEOUT_MS = 300_000;
const SHUTDOWN_GRACE_MS = 20_000;

/** `start` is the main (editor, API, webhooks); in queue mode `worker` runs executions and `webhook` only takes webhooks. */
export type N8nProcessRole = 'start' | 'worker' | 'webhook';

export async function startN8nServer(
	config: N8nInstanceConfig,
	extraEnv: NodeJS.ProcessEnv = {},
	role: N8nProcessRole = 'start',
	roleArgs: string[] = [],
): Promise<N8nServer> {
	fs.mkdirSync(config.userFolder, { recursive: true });
	const logFile = path.join(
		config.userFolder,
		role === 'start' ? 'n8n-server.log' : `n8n-${role}-${config.port}.log`,
	);
	const child = spawnInOwnGroup(NODE24_BIN, [N8N_BIN, role, ...roleArgs], {
		cwd: config.userFolder,
		env: { ...n8nEnvironment(config), ...extraEnv },
		logFile,
	});
	const baseUrl = `http://${LOOPBACK}:${config.port}`;
	const server: N8nServer = {
		baseUrl,
		pid: child.pid,
		config,
		logFile,
		exited: child.exited,
		stop: (signal) => child.stop(SHUTDOWN_GRACE_MS, signal),
		kill: () => child.kill(),
	};
	try {
		await waitForHttpOk(
			`${baseUrl}/healthz/readiness`,
			STARTUP_TIMEOUT_MS,
			() => !child.hasExited(),
		);
	} catch (error) {
		await server.stop();
		throw new Error(
			`n8n did not start: ${(error as Error).message}\nLast lines of ${logFile}:\n${lastLines(logFile, 20)}`,
		);
	}
	return server;
}
