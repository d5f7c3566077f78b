import { spawn } from 'node:child_process';
import fs from 'node:fs';

export interface CommandResult {
	code: number;
	/** Set when the process was ended by a signal (code is then 128). */
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

export interface CommandOptions {
	cwd?: string;
	env?: NodeJS.ProcessEnv;
	/** Appends both streams here as they arrive, for long installs whose output nobody reads unless it fails. */
	logFile?: string;
	timeoutMs?: number;
}

export function runCommand(
	command: string,
	args: string[],
	options: CommandOptions = {},
): Promise<CommandResult> {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, {
			cwd: options.cwd,
			env: options.env ?? process.env,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		const log = options.logFile ? fs.createWriteStream(options.logFile, { flags: 'a' }) : undefined;
		log?.write(`\n$ ${command} ${args.join(' ')}\n`);
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk: Buffer) => {
			stdout += chunk.toString();
			log?.write(chunk);
		});
		child.stderr.on('data', (chunk: Buffer) => {
			stderr += chunk.toString();
			log?.write(chunk);
		});
		const timer = options.timeoutMs
			? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs)
			: undefined;
		child.on('error', (error) => {
			if (timer) clearTimeout(timer);
			log?.end();
			reject(error);
		});
		child.on('close', (code, signal) => {
			if (timer) clearTimeout(timer);
			log?.end();
			resolve({ code: code ?? (signal ? 128 : 1), signal, stdout, stderr });
		});
	});
}

/** Runs a command that must succeed; the error carries the tail of its output so a failure explains itself. */
export async function runCommandOrThrow(
	command: string,
	args: string[],
	options: CommandOptions = {},
): Promise<CommandResult> {
	const result = await runCommand(command, args, options);
	if (result.code !== 0) {
		const tail = (result.stderr || result.stdout).trim().split('\n').slice(-15).join('\n');
		const where = options.logFile ? ` (full log: ${options.logFile})` : '';
		throw new Error(
			`\`${command} ${args.join(' ')}\` exited with ${result.signal ?? result.code}${where}:\n${tail}`,
		);
	}
	return result;
}
