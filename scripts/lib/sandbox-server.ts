import fs from 'node:fs';
import path from 'node:path';

import { pathWithNode24, PROJECT_BIN_DIR, REPO_ROOT } from '../n8n/paths';
import { LOOPBACK } from './ports';
import { lastLines, spawnInOwnGroup } from './process-group';
import { waitForHttpOk } from './wait-for-http';

export const SANDBOX_API_KEY = 'sk_sandbox_2f7c1e9a4b6d';
export const SANDBOX_SIGNING_SECRET = 'whsec_sandbox_8d3b6a0f5e7c';

export interface SandboxServer {
	baseUrl: string;
	logFile: string;
	/** Resolves when the sandbox process has exited, stopped or not. */
	exited: Promise<void>;
	stop(): Promise<void>;
}

/** Starts the sandbox through its own CLI (`npm run sandbox`), the way a developer does. */
export async function startSandboxServer(
	port: number,
	logFile: string,
	extraEnv: NodeJS.ProcessEnv = {},
): Promise<SandboxServer> {
	fs.mkdirSync(path.dirname(logFile), { recursive: true });
	const child = spawnInOwnGroup(
		path.join(PROJECT_BIN_DIR, 'tsx'),
		[path.join(REPO_ROOT, 'sandbox', 'cli.ts')],
		{
			cwd: REPO_ROOT,
			env: { ...process.env, PATH: pathWithNode24(), SANDBOX_PORT: String(port), ...extraEnv },
			logFile,
		},
	);
	const baseUrl = `http://${LOOPBACK}:${port}`;
	const sandbox: SandboxServer = {
		baseUrl,
		logFile,
		exited: child.exited,
		stop: () => child.stop(5000),
	};
	try {
		await waitForHttpOk(`${baseUrl}/__admin/health`, 30_000, () => !child.hasExited());
	} catch (error) {
		await sandbox.stop();
		throw new Error(
			`The sandbox did not start: ${(error as Error).message}\n${lastLines(logFile, 15)}`,
		);
	}
	return sandbox;
}
