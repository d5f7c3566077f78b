import './preferTypeScriptSources';

import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startBenchSandbox } from './benchSandbox';
import type { BenchSandbox } from './benchSandbox';
import { renderReport } from './report';
import type { ScenarioReport } from './report';
import { withinTime } from './runGuard';
import { measureEvents } from './scenarios/events';
import { measureInN8n } from './scenarios/inN8n';
import { measureOverhead } from './scenarios/overhead';
import { measureOverload } from './scenarios/overload';
import { measureRateLimit } from './scenarios/rateLimit';
import { measureScale } from './scenarios/scale';
import { measureSendOnce } from './scenarios/sendOnce';
import { measureSmallCampaigns } from './scenarios/smallCampaigns';

const RESULTS_FILE = path.resolve(__dirname, '..', '..', 'bench', 'results.md');
const SCENARIOS: Record<
	string,
	(sandbox: BenchSandbox, repetitions: number) => Promise<ScenarioReport>
> = {
	overhead: measureOverhead,
	'rate-limit': measureRateLimit,
	overload: measureOverload,
	scale: measureScale,
	'in-n8n': measureInN8n,
	'small-campaigns': measureSmallCampaigns,
	'send-once': measureSendOnce,
	events: measureEvents,
};
// A limit per scenario, not per run: a run of all eight takes 85 minutes on a fast 2-core machine and over two hours
// on one half as fast, so a whole-run limit either cut honest runs short or waited hours on a stuck one.
const SCENARIO_LIMIT_MS = 90 * 60_000;

function loadAverage(): string {
	return os
		.loadavg()
		.map((value) => value.toFixed(2))
		.join(' / ');
}

/** BENCH_SCENARIOS=overload,scale runs a subset while investigating; only a full run writes bench/results.md. */
function selectedScenarios(): string[] {
	const requested = (process.env.BENCH_SCENARIOS ?? '')
		.split(',')
		.map((name) => name.trim())
		.filter(Boolean);
	const unknown = requested.filter((name) => !(name in SCENARIOS));
	if (unknown.length > 0)
		throw new Error(
			`Unknown BENCH_SCENARIOS ${unknown.join(', ')}; choose from ${Object.keys(SCENARIOS).join(', ')}`,
		);
	return requested.length > 0
		? Object.keys(SCENARIOS).filter((name) => requested.includes(name))
		: Object.keys(SCENARIOS);
}

async function main(): Promise<void> {
	const selected = selectedScenarios();
	const repetitions = Number(process.env.BENCH_REPETITIONS ?? 3);
	if (!Number.isInteger(repetitions) || repetitions < 1 || repetitions > 9)
		throw new Error('BENCH_REPETITIONS must be a whole number from 1 to 9');
	const startedAt = new Date();
	const loadAverageAtStart = loadAverage();
	process.stderr.write(
		`Benchmark: ${repetitions} repetitions per scenario; load average ${loadAverageAtStart}\n`,
	);

	const scenarios: ScenarioReport[] = [];
	for (const name of selected) {
		const scenarioStartedAt = Date.now();
		// A sandbox of its own per scenario: it keeps every message it accepted, and one shared by a whole run had
		// grown to 1.2 GB by send once, its collections competing with n8n for the machine's cores.
		const sandbox = await startBenchSandbox();
		try {
			const report = await withinTime(
				SCENARIOS[name](sandbox, repetitions),
				SCENARIO_LIMIT_MS,
				`The ${name} scenario`,
			);
			scenarios.push(report);
			process.stderr.write(
				`  ${report.title} done in ${((Date.now() - scenarioStartedAt) / 1000).toFixed(0)} s\n`,
			);
		} finally {
			await sandbox.stop();
		}
	}

	const report = renderReport(
		{
			cores: os.availableParallelism(),
			cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown CPU',
			nodeVersion: process.version,
			startedAt: startedAt.toISOString(),
			loadAverageAtStart,
			loadAverageAtEnd: loadAverage(),
			repetitions,
			totalSeconds: (Date.now() - startedAt.getTime()) / 1000,
		},
		scenarios,
	);
	process.stdout.write(report);
	if (selected.length === Object.keys(SCENARIOS).length) {
		mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
		writeFileSync(RESULTS_FILE, report);
		process.stdout.write(`\nWritten to ${path.relative(process.cwd(), RESULTS_FILE)}\n`);
	} else {
		process.stdout.write(
			`\nA partial run (${selected.join(', ')}): ${path.relative(process.cwd(), RESULTS_FILE)} left as it was\n`,
		);
	}
}

// A target that fails is a result, not an error: only a broken benchmark (a stuck scenario too) exits non-zero.
main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(
			`The benchmark broke: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
		);
		process.exit(1);
	},
);
