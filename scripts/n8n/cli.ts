import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { runCommand, runCommandOrThrow, type CommandResult } from '../lib/command';
import { findFreePort } from '../lib/ports';
import { n8nEnvironment, type QueueBackend } from './environment';
import { N8N_BIN, NODE24_BIN } from './paths';

export interface N8nCliTarget {
	userFolder: string;
	/** The port of the server using this folder, if any: CLI commands must not claim it, but webhook URLs derive from it. */
	port: number;
	queue?: QueueBackend;
}

async function cliEnvironment(target: N8nCliTarget): Promise<NodeJS.ProcessEnv> {
	return n8nEnvironment({
		userFolder: target.userFolder,
		port: target.port,
		brokerPort: await findFreePort(),
		queue: target.queue,
	});
}

export async function runN8nCli(
	target: N8nCliTarget,
	args: string[],
	extraEnv: NodeJS.ProcessEnv = {},
): Promise<CommandResult> {
	fs.mkdirSync(target.userFolder, { recursive: true });
	return runCommand(NODE24_BIN, [N8N_BIN, ...args], {
		cwd: target.userFolder,
		env: { ...(await cliEnvironment(target)), ...extraEnv },
		logFile: path.join(target.userFolder, 'n8n-cli.log'),
		timeoutMs: 180_000,
	});
}

async function runN8nCliOrThrow(target: N8nCliTarget, args: string[]): Promise<CommandResult> {
	fs.mkdirSync(target.userFolder, { recursive: true });
	return runCommandOrThrow(NODE24_BIN, [N8N_BIN, ...args], {
		cwd: target.userFolder,
		env: await cliEnvironment(target),
		logFile: path.join(target.userFolder, 'n8n-cli.log'),
		timeoutMs: 180_000,
	});
}

/**
 * The CLI's own copy of the server's folder, taken before the server starts. `n8n execute` writes its execution to
 * SQLite and n8n sets no busy timeout, so a write of the CLI while the server writes fails at once with SQLITE_BUSY
 * (CI on n8n 2.41.1). Only SQLite needs it: queue mode's Postgres takes writers from many processes.
 */
export function cliWithOwnDatabase(target: N8nCliTarget): N8nCliTarget {
	const server = path.join(target.userFolder, '.n8n');
	const userFolder = path.join(target.userFolder, 'cli');
	fs.rmSync(userFolder, { recursive: true, force: true });
	fs.mkdirSync(path.join(userFolder, '.n8n'), { recursive: true });
	for (const entry of fs.readdirSync(server)) {
		// The encryption key, the installed packages and the database with its WAL files.
		if (entry === 'config' || entry === 'nodes' || entry.startsWith('database.sqlite'))
			fs.cpSync(path.join(server, entry), path.join(userFolder, '.n8n', entry), {
				recursive: true,
			});
	}
	return { ...target, userFolder };
}

export interface CredentialToImport {
	id: string;
	name: string;
	type: string;
	/** Plain values: the import command encrypts them with the instance's key. */
	data: Record<string, string>;
}

export async function importCredentials(
	target: N8nCliTarget,
	credentials: CredentialToImport[],
): Promise<void> {
	const file = writeTemporaryJson('credentials', credentials);
	try {
		await runN8nCliOrThrow(target, ['import:credentials', `--input=${file}`]);
	} finally {
		fs.rmSync(path.dirname(file), { recursive: true, force: true });
	}
}

export async function importWorkflows(target: N8nCliTarget, workflows: object[]): Promise<void> {
	const file = writeTemporaryJson('workflows', workflows);
	try {
		await runN8nCliOrThrow(target, ['import:workflow', `--input=${file}`]);
	} finally {
		fs.rmSync(path.dirname(file), { recursive: true, force: true });
	}
}

/** n8n 2.x runs a sub-workflow from its database only once it is published. */
export async function publishWorkflow(target: N8nCliTarget, id: string): Promise<void> {
	await runN8nCliOrThrow(target, ['publish:workflow', `--id=${id}`]);
}

function writeTemporaryJson(name: string, content: unknown): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-import-'));
	const file = path.join(dir, `${name}.json`);
	fs.writeFileSync(file, JSON.stringify(content, null, 2));
	return file;
}

export interface NodeRun {
	executionStatus?: string;
	error?: { message?: string; description?: string };
	data?: { main?: Array<Array<{ json: Record<string, unknown>; pairedItem?: unknown }> | null> };
}

export interface ExecutionResult {
	status?: string;
	data: {
		resultData: {
			runData: Record<string, NodeRun[]>;
			error?: { message?: string; description?: string };
			lastNodeExecuted?: string;
		};
	};
}

/**
 * `n8n execute --id`: runs the workflow from its Manual Trigger in this process (not in a running server)
 * and prints the whole run as JSON, which is parsed here.
 */
export async function executeWorkflow(
	target: N8nCliTarget,
	workflowId: string,
): Promise<ExecutionResult> {
	// --rawOutput prints the run only at log level info or more verbose; a caller's quieter level would hide it.
	const result = await runN8nCli(target, ['execute', `--id=${workflowId}`, '--rawOutput'], {
		N8N_LOG_LEVEL: 'info',
	});
	const run = parseRunJson(result.stdout);
	// Seen under heavy load: the CLI printed its finished, successful run and was then ended by a signal
	// while shutting down. The run it reported stands; the signal is reported, not hidden.
	if (run?.status === 'success' && result.signal) {
		console.warn(
			`  (n8n execute --id=${workflowId} was ended by ${result.signal} after reporting its successful run)`,
		);
		return run;
	}
	if (result.code !== 0 || !run) {
		const tail = `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-25).join('\n');
		throw new Error(`n8n execute --id=${workflowId} exited with ${result.code}:\n${tail}`);
	}
	return run;
}

/** The run is the one multi-line JSON object on stdout; log lines may surround it. */
function parseRunJson(stdout: string): ExecutionResult | undefined {
	const start = stdout.search(/^\{$/m);
	const end = stdout.lastIndexOf('\n}');
	if (start < 0 || end < start) return undefined;
	try {
		return JSON.parse(stdout.slice(start, end + 2)) as ExecutionResult;
	} catch {
		return undefined;
	}
}

/** The items a node sent down one of its outputs (0: main, 1: the error output of "Continue (using error output)"). */
export function nodeOutput(
	run: ExecutionResult,
	nodeName: string,
	output = 0,
): Array<{ json: Record<string, unknown>; pairedItem?: unknown }> {
	const nodeRuns = run.data.resultData.runData[nodeName];
	if (!nodeRuns?.length) throw new Error(`Node "${nodeName}" did not run.`);
	const [first] = nodeRuns;
	if (first.error)
		throw new Error(
			`Node "${nodeName}" failed: ${first.error.message} ${first.error.description ?? ''}`.trim(),
		);
	return first.data?.main?.[output] ?? [];
}

export function outputItemsOf(
	run: ExecutionResult,
	nodeName: string,
	output = 0,
): Array<Record<string, unknown>> {
	return nodeOutput(run, nodeName, output).map((item) => item.json);
}
