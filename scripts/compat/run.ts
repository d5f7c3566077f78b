/**
 * `npm run test:compat`: the packed package in each tested n8n (installed into the machine's cache when absent),
 * headless, through the smoke subset of the e2e: the e2e's own runner and phases, one child process per version.
 * One result line per version, then the closing count of versions.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { runCheckScript } from '../../test/e2e/harness';
import { ensureN8nInstalled, isN8nInstalled } from '../n8n/install';
import { buildAndPack } from '../n8n/package';
import { PROJECT_BIN_DIR, REPO_ROOT } from '../n8n/paths';
import {
	AGENT_VERSION_CHECKED,
	agentVersionsOf,
	COMPAT_PHASES,
	selectedVersions,
	type CompatVersion,
} from './versions';

interface E2eOutcome {
	code: number;
	passed: number;
	failed: number;
}

function seconds(since: number): string {
	return `${Math.round((Date.now() - since) / 1000)} s`;
}

/** Runs the e2e on one n8n, its lines prefixed with the version, and reads its closing count. */
function runE2e(version: string, phases: string[], packedDir: string): Promise<E2eOutcome> {
	return new Promise((resolve, reject) => {
		const child = spawn(path.join(PROJECT_BIN_DIR, 'tsx'), ['scripts/e2e/run.ts'], {
			cwd: REPO_ROOT,
			env: {
				...process.env,
				MESSAGING_N8N_VERSION: version,
				E2E_ONLY: phases.join(','),
				MESSAGING_PACKED_FROM: packedDir,
			},
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let output = '';
		let partial = '';
		const relay = (chunk: Buffer) => {
			output += chunk.toString();
			const lines = (partial + chunk.toString()).split('\n');
			partial = lines.pop() ?? '';
			for (const line of lines) console.log(`[${version}] ${line}`);
		};
		child.stdout.on('data', relay);
		child.stderr.on('data', relay);
		child.on('error', reject);
		child.on('close', (code) => {
			if (partial) console.log(`[${version}] ${partial}`);
			const counts = [...output.matchAll(/^(\d+) passed, (\d+) failed$/gm)].pop();
			resolve({
				code: code ?? 1,
				passed: Number(counts?.[1] ?? 0),
				failed: Number(counts?.[2] ?? 1),
			});
		});
	});
}

/** The smoke subset on one n8n; returns its result line. */
async function checkVersion(
	{ version, role }: CompatVersion,
	packedDir: string,
): Promise<[boolean, string]> {
	const label = `n8n ${version} (${role})`;
	const installStarted = Date.now();
	const wasInstalled = isN8nInstalled(version);
	try {
		await ensureN8nInstalled((line) => console.log(`[${version}] › ${line}`), version);
	} catch (error) {
		const firstLines = (error as Error).message.split('\n').slice(0, 4).join(' | ');
		return [false, `${label}: FAIL, does not install: ${firstLines}`];
	}
	const install = wasInstalled ? 'install cached' : `installed in ${seconds(installStarted)}`;
	const agents = agentVersionsOf(version);
	const hasAgent = agents.includes(AGENT_VERSION_CHECKED);
	const phases = COMPAT_PHASES.filter((phase) => hasAgent || phase !== 'ai-agent');
	const agentNote = hasAgent
		? `AI Agent ${AGENT_VERSION_CHECKED} checked`
		: `AI Agent ${AGENT_VERSION_CHECKED} absent (has ${agents.join(', ') || 'none'}), its phase not run`;
	const started = Date.now();
	const outcome = await runE2e(version, phases, packedDir);
	const passed = outcome.code === 0 && outcome.failed === 0;
	return [
		passed,
		`${label}: ${passed ? 'PASS' : 'FAIL'}, ${outcome.passed} passed, ${outcome.failed} failed; ${agentNote}; ${install}, run ${seconds(started)}`,
	];
}

async function main(): Promise<number> {
	const versions = selectedVersions();
	console.log(
		`Compatibility: ${versions.map((entry) => entry.version).join(', ')}; phases ${COMPAT_PHASES.join(', ')}`,
	);
	const packedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-nodes-messaging-compat-pack-'));
	await buildAndPack(packedDir, { reuseIfUnchanged: false });
	const check = async (entry: CompatVersion) => {
		const result = await checkVersion(entry, packedDir);
		console.log(`\n${result[1]}\n`);
		return result;
	};
	// COMPAT_PARALLEL=1 checks every version at once (.ci/run does: two versions in turn took 8 to 12 minutes of it).
	const results: Array<[boolean, string]> = [];
	if (process.env.COMPAT_PARALLEL === '1')
		results.push(...(await Promise.all(versions.map(check))));
	else for (const entry of versions) results.push(await check(entry));
	fs.rmSync(packedDir, { recursive: true, force: true });
	console.log('Compatibility results:');
	for (const [, line] of results) console.log(`  ${line}`);
	const failed = results.filter(([passed]) => !passed).length;
	console.log(`${results.length - failed} passed, ${failed} failed`);
	return failed ? 1 : 0;
}

runCheckScript(main);
