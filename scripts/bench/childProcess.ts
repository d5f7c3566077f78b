import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';

export type TypeScriptChild = ChildProcessByStdio<Writable, Readable, null>;

/** Runs a TypeScript entry of this folder in a fresh Node process (same Node binary, tsx loader). */
export function spawnTypeScript(
	entryFile: string,
	env: NodeJS.ProcessEnv = {},
	nodeFlags: string[] = [],
): TypeScriptChild {
	return spawn(
		process.execPath,
		[...nodeFlags, '--import', 'tsx', path.join(__dirname, entryFile)],
		{
			cwd: path.resolve(__dirname, '..', '..'),
			env: { ...process.env, ...env },
			stdio: ['pipe', 'pipe', 'inherit'],
		},
	);
}

/** Resolves with the first stdout line that parses as JSON, or rejects when the child exits or the deadline passes. */
export function firstJsonLine<T>(
	child: TypeScriptChild,
	deadlineMs: number,
	label: string,
): Promise<T> {
	return new Promise<T>((resolve, reject) => {
		let buffered = '';
		const fail = (reason: string) => {
			cleanup();
			reject(new Error(`${label}: ${reason}`));
		};
		const onData = (chunk: Buffer) => {
			buffered += chunk.toString('utf8');
			for (const line of buffered.split('\n').slice(0, -1)) {
				if (!line.trim().startsWith('{')) continue;
				cleanup();
				resolve(JSON.parse(line) as T);
				return;
			}
			buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
		};
		const onExit = (code: number | null) => fail(`exited with code ${code} before reporting`);
		const timer = setTimeout(() => fail(`no report within ${deadlineMs} ms`), deadlineMs);
		const cleanup = () => {
			clearTimeout(timer);
			child.stdout.off('data', onData);
			child.off('exit', onExit);
		};
		child.stdout.on('data', onData);
		child.once('exit', onExit);
	});
}

export function waitForExit(child: TypeScriptChild, deadlineMs: number): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
	return new Promise((resolve) => {
		const timer = setTimeout(() => {
			child.kill('SIGKILL');
			resolve();
		}, deadlineMs);
		child.once('exit', () => {
			clearTimeout(timer);
			resolve();
		});
	});
}
