import { spawn } from 'node:child_process';
import fs from 'node:fs';

import { PortTakenError } from './ports';

export interface BackgroundProcess {
	readonly pid: number;
	/** Resolves when the process has exited, for whatever reason. */
	readonly exited: Promise<void>;
	hasExited(): boolean;
	/**
	 * `signal` (SIGTERM unless told) to the whole group, SIGKILL after `graceMs`; resolves once the leader has
	 * exited. SIGKILL first stands for a crash: nothing gets to shut down.
	 */
	stop(graceMs: number, signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
	/** SIGKILL to the whole group at once, as an OOM kill or a node reboot would; resolves once it has exited. */
	kill(): Promise<void>;
}

const running = new Set<BackgroundProcess>();

/** If this script dies without stopping what it started, nothing is left behind listening on a port. */
process.once('exit', () => {
	for (const child of running) signalGroup(child.pid, 'SIGKILL');
});

/**
 * Spawns a long-running process in its own process group, output to `logFile`. The group matters:
 * n8n starts task-runner children, and stopping the group stops them too.
 */
export function spawnInOwnGroup(
	command: string,
	args: string[],
	options: { cwd: string; env: NodeJS.ProcessEnv; logFile: string },
): BackgroundProcess {
	const log = fs.openSync(options.logFile, 'a');
	const child = spawn(command, args, {
		cwd: options.cwd,
		env: options.env,
		stdio: ['ignore', log, log],
		detached: true,
	});
	fs.closeSync(log);
	if (child.pid === undefined) throw new Error(`Could not start ${command}.`);
	const pid = child.pid;
	let exited = false;
	const exitedPromise = new Promise<void>((resolve) =>
		child.once('exit', () => {
			exited = true;
			resolve();
		}),
	);
	const handle: BackgroundProcess = {
		pid,
		exited: exitedPromise,
		hasExited: () => exited,
		async kill() {
			signalGroup(pid, 'SIGKILL');
			await exitedPromise;
			running.delete(handle);
		},
		async stop(graceMs: number, signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM') {
			if (!exited) {
				signalGroup(pid, signal);
				const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs);
				await exitedPromise;
				clearTimeout(timer);
			}
			// Children may outlive the leader by a moment; the group id still names them.
			signalGroup(pid, 'SIGKILL');
			running.delete(handle);
		},
	};
	running.add(handle);
	return handle;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pid, signal);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
	}
}

export function lastLines(file: string, count: number): string {
	if (!fs.existsSync(file)) return '(no log)';
	return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-count).join('\n');
}

/** What a long-running command (`npm start`, `npm run start:queue`) stops on Ctrl-C, on failure, or when a part dies. */
export class StopSwitch {
	private stopping = false;

	constructor(
		private readonly what: string,
		private readonly stop: () => Promise<void>,
	) {
		process.on('SIGINT', () => void this.stopAll(0));
		process.on('SIGTERM', () => void this.stopAll(0));
	}

	/** Stops everything once, however many callers ask, then exits. */
	async stopAll(exitCode: number): Promise<never> {
		if (!this.stopping) {
			this.stopping = true;
			console.log(`\nStopping ${this.what}…`);
			await this.stop();
			console.log('Stopped.');
		}
		process.exit(exitCode);
	}

	/** Starts what a start script serves; a failure on the way stops whatever had started, and says why. */
	async startOrStopAll(start: () => Promise<void>): Promise<void> {
		try {
			await start();
		} catch (error) {
			console.error(`\n${(error as Error).message}`);
			await this.stopAll(1);
		}
	}

	/** A part that exits on its own (not stopped by this switch) takes everything down, with the end of its log. */
	stopAllWhenExited(name: string, part: { exited: Promise<void>; logFile: string }): void {
		void part.exited.then(() => {
			if (this.stopping) return;
			console.error(
				`\n${name} stopped unexpectedly. Last lines of ${part.logFile}:\n${lastLines(part.logFile, 15)}`,
			);
			void this.stopAll(1);
		});
	}
}

/** Runs a start script (`npm start`, `npm run start:queue`): a port in use is told in one line, any other failure with its stack. */
export function runStartScript(main: () => Promise<void>): void {
	main().catch((error: Error) => {
		console.error(error instanceof PortTakenError ? error.message : (error.stack ?? error.message));
		process.exit(1);
	});
}
