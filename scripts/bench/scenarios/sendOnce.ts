import type { N8nCliTarget } from '../../n8n/cli';
import { importWorkflows } from '../../n8n/cli';
import type { BenchSandbox } from '../benchSandbox';
import { executeWorkflowToFile } from '../inN8n/executeToFile';
import { watchRss, type RssWatch } from '../inN8n/peakRss';
import { sampleOf, type CaseSample } from '../inN8n/samples';
import { campaignWorkflow, type Branch } from '../inN8n/workflows';
import type { LatencyProxy } from '../latencyProxy';
import { formatNumber, type ScenarioReport } from '../report';
import { median, rotated } from '../stats';
import { withBenchN8n } from './inN8n';

interface CostProvider {
	key: string;
	label: string;
	rateLimit: { perSecond: number; burst: number } | null;
	options: Record<string, unknown>;
}

const PROVIDERS: CostProvider[] = [
	{ key: 'fast', label: '20 ms, unlimited', rateLimit: null, options: {} },
	{
		key: 'bucket',
		label: '100/s bucket',
		rateLimit: { perSecond: 100, burst: 100 },
		options: { maxPerSecond: 100 },
	},
];
const SIZES = [1_000, 10_000];
const CASES = [
	{ key: 'on', label: 'Send Once Within 24 h', options: { sendOnceHours: 24 } },
	{ key: 'off', label: 'Send Once Within 0', options: { sendOnceHours: 0 } },
];
const TARGET_RATIO = 1.05;

interface Sample extends CaseSample {
	peakRssMb: number;
}

/** One `n8n execute` per case: a warm-up branch, then the case, so each case's process memory is its own. */
async function runCase(
	cli: N8nCliTarget,
	sandbox: BenchSandbox,
	proxy: LatencyProxy,
	run: { provider: CostProvider; size: number; caseKey: string; options: object; tag: string },
): Promise<Sample> {
	await sandbox.configure({ latency: null, rateLimit: run.provider.rateLimit });
	proxy.shape({ latencyMs: 20, jitterMs: 5 });
	proxy.clear();
	const options = { ...run.provider.options, ...run.options };
	const warmUp: Branch = {
		key: 'warmUp',
		runTag: `${run.tag}-warm`,
		count: 200,
		sender: { kind: 'messaging', options: { ...options, maxConcurrency: 20 } },
	};
	const measured: Branch = {
		key: run.caseKey,
		runTag: run.tag,
		count: run.size,
		sender: { kind: 'messaging', options },
	};
	const id = `once${run.tag}`.replace(/[^a-zA-Z0-9]/g, '').slice(0, 16);
	await importWorkflows(cli, [
		campaignWorkflow(
			id,
			[warmUp, measured],
			{ baseUrl: proxy.url, apiKey: sandbox.apiKey },
			run.provider.rateLimit ? 2 : 0,
		),
	]);
	const memory: RssWatch = { peakMb: 0, samples: [] };
	const result = await executeWorkflowToFile(cli, id, { watch: (pid) => watchRss(pid, memory) });
	return { ...sampleOf(measured, result, proxy.records()), peakRssMb: memory.peakMb };
}

/**
 * What the send-once record costs in a real n8n 2.40.7: the same campaign with it (Send Once Within 24 h) and without
 * (Send Once Within 0), by the sending node's time, with the n8n process's peak memory.
 */
export async function measureSendOnce(
	sandbox: BenchSandbox,
	repetitions: number,
): Promise<ScenarioReport> {
	const book = new Map<string, Sample[]>();
	await withBenchN8n(sandbox, async (cli, proxy) => {
		const stamp = Date.now().toString(36);
		// BENCH_SEND_ONCE_RUNS=fast/10000 measures some runs while investigating.
		const only = process.env.BENCH_SEND_ONCE_RUNS?.split(',');
		for (let repetition = 0; repetition < repetitions; repetition++)
			for (const provider of PROVIDERS)
				for (const size of SIZES.filter((n) => !only || only.includes(`${provider.key}/${n}`)))
					for (const entry of rotated(CASES, repetition)) {
						const tag = `${provider.key}${size}${entry.key}${repetition}${stamp}`;
						const sample = await runCase(cli, sandbox, proxy, {
							provider,
							size,
							caseKey: entry.key,
							options: entry.options,
							tag,
						});
						const key = `${provider.key}/${size}/${entry.key}`;
						book.set(key, [...(book.get(key) ?? []), sample]);
						process.stderr.write(
							`    send once: ${provider.label}, ${size}, ${entry.key}: node ${formatNumber(sample.nodeMs / 1000, 2)} s (on the wire ${formatNumber(sample.sendingMs / 1000, 2)} s, p99 ${formatNumber(sample.p99LatencyMs)} ms), peak ${formatNumber(sample.peakRssMb)} MB\n`,
						);
					}
	});
	return sendOnceReport(book, repetitions);
}

function sendOnceReport(book: Map<string, Sample[]>, repetitions: number): ScenarioReport {
	const pick = (key: string, of: (sample: Sample) => number) =>
		median((book.get(key) ?? []).map(of));
	const rows: string[][] = [];
	const targets = PROVIDERS.flatMap((provider) =>
		SIZES.map((size) => {
			const on = `${provider.key}/${size}/on`;
			const off = `${provider.key}/${size}/off`;
			const ratio = pick(on, (s) => s.nodeMs) / pick(off, (s) => s.nodeMs);
			for (const [key, label] of [
				[on, CASES[0].label],
				[off, CASES[1].label],
			])
				rows.push([
					provider.label,
					formatNumber(size),
					label,
					formatNumber(pick(key, (s) => s.nodeMs) / 1000, 2),
					formatNumber(pick(key, (s) => s.peakRssMb)),
					formatNumber(pick(key, (s) => s.failed + s.duplicates)),
				]);
			return {
				target: `Send once costs ≤ ${Math.round((TARGET_RATIO - 1) * 100)} % at ${provider.label}, ${formatNumber(size)} messages (node time, with / without)`,
				measured: `${formatNumber(ratio, 3)} ×`,
				holds: ratio <= TARGET_RATIO,
			};
		}),
	);
	return {
		title: '6. Send once',
		setup: `a real n8n 2.40.7 (n8n execute, SQLite), one process per case and repetition (${repetitions}): a warm-up branch of 200, then the campaign through the Messaging node with send once (the default) or Send Once Within 0; 20 ms provider behind the proxy, unlimited at the node's defaults or a 100/s bucket at Max Messages per Second 100. node s = the sending node's executionTime; peak memory = the n8n process's VmHWM (MB = 10^6 bytes). Medians.`,
		measures: [],
		tables: [
			{
				caption: 'Send once against the same run without it',
				header: ['provider', 'messages', 'case', 'node s', 'peak MB', 'lost + duplicated'],
				rows,
			},
		],
		targets,
	};
}
