import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { findFreePort } from '../../lib/ports';
import type { ExecutionResult, N8nCliTarget } from '../../n8n/cli';
import { n8nEnvironment } from '../../n8n/environment';
import { N8N_BIN, NODE24_BIN } from '../../n8n/paths';

const RUN_LIMIT_MS = 600_000;
/**
 * n8n runs at a lower CPU priority than the benchmark's provider doubles (the latency proxy, the sandbox). A real
 * provider answers from its own machines; on these 2 cores, a busy n8n used to delay the doubles' answers by 30 to
 * 100 ms at p99, which read as the provider's latency (docs/bench.md). `BENCH_N8N_NICE=0` runs n8n as before.
 */
const N8N_NICENESS = Number(process.env.BENCH_N8N_NICE ?? 10);

/**
 * `n8n execute --rawOutput` with its output written to a file. A run of several thousand items prints megabytes
 * of JSON, and n8n exits right after printing: through a pipe the end of it was lost; a file is written in full.
 */
export async function executeWorkflowToFile(
	target: N8nCliTarget,
	workflowId: string,
	{
		watch,
		runLimitMs = RUN_LIMIT_MS,
		settings = {},
		nodeArgs = [],
	}: {
		/** Told the n8n process's pid once it runs; what it returns is called when the process has ended. */
		watch?: (pid: number) => () => void;
		runLimitMs?: number;
		/** n8n settings for this run on top of the instance's. */
		settings?: NodeJS.ProcessEnv;
		/** Node.js flags for the n8n process, e.g. --expose-gc. */
		nodeArgs?: string[];
	} = {},
): Promise<ExecutionResult> {
	const outputFile = path.join(target.userFolder, `execute-${workflowId}.json`);
	const output = fs.openSync(outputFile, 'w');
	const errors = fs.openSync(path.join(target.userFolder, 'n8n-cli.log'), 'a');
	try {
		const env = {
			...n8nEnvironment({
				userFolder: target.userFolder,
				port: target.port,
				brokerPort: await findFreePort(),
			}),
			N8N_LOG_LEVEL: 'info',
			...settings,
		};
		// BENCH_N8N_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the n8n process (not allowed in NODE_OPTIONS).
		const extraArgs = process.env.BENCH_N8N_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
		const args = [
			...nodeArgs,
			...extraArgs,
			N8N_BIN,
			'execute',
			`--id=${workflowId}`,
			'--rawOutput',
		];
		const child = spawn(NODE24_BIN, args, {
			cwd: target.userFolder,
			env,
			stdio: ['ignore', output, errors],
		});
		if (child.pid !== undefined && N8N_NICENESS !== 0) os.setPriority(child.pid, N8N_NICENESS);
		const stopWatching = child.pid === undefined ? undefined : watch?.(child.pid);
		const timer = setTimeout(() => child.kill('SIGKILL'), runLimitMs);
		const code = await new Promise<number | null>((resolve, reject) => {
			child.on('error', reject);
			child.on('close', resolve);
		}).finally(() => {
			clearTimeout(timer);
			stopWatching?.();
		});
		const stdout = fs.readFileSync(outputFile, 'utf8');
		const start = stdout.search(/^\{$/m);
		const end = stdout.lastIndexOf('\n}');
		if (start < 0 || end < start)
			throw new Error(
				`n8n execute --id=${workflowId} (exit ${code}) printed no run: ${stdout.slice(-2000)}`,
			);
		return JSON.parse(stdout.slice(start, end + 2)) as ExecutionResult;
	} finally {
		fs.closeSync(output);
		fs.closeSync(errors);
		fs.rmSync(outputFile, { force: true });
	}
}
