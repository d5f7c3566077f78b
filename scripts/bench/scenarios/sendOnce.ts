import type { ExecutionResult, N8nCliTarget } from '../../n8n/cli';
import { importWorkflows } from '../../n8n/cli';
import type { BenchSandbox } from '../benchSandbox';
import { executeWorkflowToFile } from '../inN8n/executeToFile';
import { peakWithin, watchRss, type RssWatch } from '../inN8n/peakRss';
import { checkBranchesRanInTurn, sampleOf, type CaseSample } from '../inN8n/samples';
import {
	campaignWorkflow,
	rowsNodeName,
	sendNodeName,
	type Branch,
	type Sender,
} from '../inN8n/workflows';
import type { LatencyProxy } from '../latencyProxy';
import { formatNumber, type ScenarioReport, type TargetCheck } from '../report';
import { median, rotated } from '../stats';
import { withBenchN8n } from './inN8n';

export interface CostProvider {
	key: string;
	label: string;
	rateLimit: { perSecond: number; burst: number } | null;
	options: Record<string, unknown>;
	/**
	 * Repetitions come in pairs, one with send once first and one with it second: the case run first in a process was
	 * measured up to 10 % slower whichever it was, so only a pair says what the record costs. Short cases get as
	 * many pairs as the run has repetitions, and the shortest twice as many: a 1,000-message case lasts under a
	 * second, its processes' ratios spread from 0.77 to 1.37 × around a cost of a few per cent, and the spread is
	 * between processes (four runs of each case in one process, x y y x twice, spread as much). The bucket's, 100 s
	 * each and steady within 1 %, one.
	 */
	orderPairs: (repetitions: number, size: number) => number;
	/**
	 * Rounds of both cases in one process, each in the reverse order of the one before (on off off on on off off on).
	 * At 10,000 messages two like branches of one process differed by 4 to 17 % either way (29 Nov), and the case run
	 * first after the warm-up took 1 to 3 s more of n8n's CPU whichever it was (2 Dec): every round after the first
	 * shrinks what a process's ratio owes to either, for ~20 s a round.
	 */
	roundsPerProcess: (size: number) => number;
	warmUpSends: number;
}

/**
 * The warm-up teaches the automatic limit the provider's pace, which a process keeps per credential and base URL
 * (paceMemory.ts), so both cases start from a pace already found. 1,000 sends at 20 ms were not enough: the limit
 * still climbed through the cases after it (eight 1,000-message cases in one process fell from 1.2 to 0.8 s), and a
 * case's time then said as much about where the climb stood as about the record (1.13 × in both orders; after
 * 5,000, 0.94 and 0.99 ×). Under the 100/s bucket the pace is the node's Max Messages per Second, so 200 sends do.
 */
export const PROVIDERS: CostProvider[] = [
	{
		key: 'fast',
		label: '20 ms, unlimited',
		rateLimit: null,
		options: {},
		orderPairs: (repetitions, size) => (size <= 1_000 ? 2 * repetitions : repetitions),
		roundsPerProcess: (size) => (size <= 1_000 ? 1 : 4),
		warmUpSends: 5_000,
	},
	{
		key: 'bucket',
		label: '100/s bucket',
		rateLimit: { perSecond: 100, burst: 100 },
		options: { maxPerSecond: 100 },
		orderPairs: () => 1,
		roundsPerProcess: () => 1,
		warmUpSends: 200,
	},
];
const SIZES = [1_000, 10_000];
const CASES = {
	on: { label: 'Send Once Within 24 h', options: { sendOnceHours: 24 } },
	off: { label: 'Send Once Within 0', options: { sendOnceHours: 0 } },
};
type CaseKey = keyof typeof CASES;
const CASE_KEYS: CaseKey[] = ['on', 'off'];
const TARGET_RATIO = 1.05;
/**
 * Each branch starts after a full collection of n8n's heap and a pause of at least this long: the case run first
 * after the warm-up otherwise began with the warm-up's garbage, the second with the first's, and the one run first
 * was slower by 3 to 20 %, by an amount that changed between processes.
 */
const SETTLE_SECONDS = 1;
/** Refills the 100/s bucket before each case, so none inherits the one before's debt. */
const BUCKET_REFILL_SECONDS = 2;

export interface Sample extends CaseSample {
	/** The highest resident size sampled while the case's branch ran, MB. */
	peakRssMb: number;
}

/** Both cases of one round, measured in the same n8n process. */
export type Pair = Record<CaseKey, Sample>;
/** Pairs per `provider/size`, one per round of each repetition, in run order. */
export type PairBook = Map<string, Pair[]>;

export interface Run {
	provider: CostProvider;
	size: number;
}

const runKey = ({ provider, size }: Run) => `${provider.key}/${size}`;

/** BENCH_SEND_ONCE_RUNS=fast/10000,bucket/1000 measures some runs while investigating; the report covers those. */
function selectedRuns(): Run[] {
	const only = (process.env.BENCH_SEND_ONCE_RUNS ?? '').split(',').filter(Boolean);
	const all = PROVIDERS.flatMap((provider) => SIZES.map((size) => ({ provider, size })));
	if (only.length === 0) return all;
	const runs = all.filter((run) => only.includes(runKey(run)));
	// A misspelt selection would otherwise measure nothing and report nothing.
	if (runs.length === 0)
		throw new Error(`BENCH_SEND_ONCE_RUNS matches none of ${all.map(runKey).join(', ')}`);
	return runs;
}

interface TimedRun {
	startTime: number;
	executionTime: number;
}

/** From the branch's rows node starting to its sending node ending: the case's time, its Wait left out. */
function branchWindow(branch: Branch, result: ExecutionResult): { from: number; to: number } {
	const runOf = (name: string) => result.data.resultData.runData[name]?.[0] as TimedRun | undefined;
	const rows = runOf(rowsNodeName(branch));
	const send = runOf(sendNodeName(branch));
	if (!rows || !send) throw new Error(`n8n's run data has no run of case ${branch.key}`);
	return { from: rows.startTime, to: send.startTime + send.executionTime };
}

function casesOf(run: Run, repetition: number) {
	const tag = `${run.provider.key}${run.size}r${repetition}${Date.now().toString(36)}`;
	const messaging = (options: object): Sender => ({
		kind: 'messaging',
		options: { ...run.provider.options, ...options },
	});
	const warmUp: Branch = {
		key: 'warmUp',
		runTag: `${tag}-warmUp`,
		count: run.provider.warmUpSends,
		// With the record, so the branch goes through every step either case takes.
		sender: messaging(CASES.on.options),
	};
	const branchOf = (key: CaseKey, round: number): Branch => {
		const name = round === 0 ? key : `${key}${round + 1}`;
		return {
			key: name,
			runTag: `${tag}-${name}`,
			count: run.size,
			sender: messaging(CASES[key].options),
		};
	};
	const rounds = Array.from({ length: run.provider.roundsPerProcess(run.size) }, (_, round) => ({
		on: branchOf('on', round),
		off: branchOf('off', round),
	}));
	return { warmUp, rounds };
}

/**
 * One `n8n execute`: the warm-up, then both cases in an order rotated per repetition, and reversed in each round
 * after. Cases in separate processes differed by up to 70 % for the same run; in one process what the process
 * brings weighs on both alike.
 */
async function runRepetition(
	cli: N8nCliTarget,
	sandbox: BenchSandbox,
	proxy: LatencyProxy,
	run: Run & { repetition: number },
): Promise<{ order: CaseKey[]; pairs: Pair[] }> {
	await sandbox.configure({ latency: null, rateLimit: run.provider.rateLimit });
	await sandbox.clearHistory();
	proxy.shape({ latencyMs: 20, jitterMs: 5 });
	proxy.clear();
	const { warmUp, rounds } = casesOf(run, run.repetition);
	const order = rotated(CASE_KEYS, run.repetition);
	const orderOf = (round: number) => (round % 2 === 0 ? order : [...order].reverse());
	const branches = [
		warmUp,
		...rounds.flatMap((cases, round) => orderOf(round).map((key) => cases[key])),
	];
	const id = `once${run.provider.key.slice(0, 4)}${run.size}r${run.repetition}`;
	await importWorkflows(cli, [
		campaignWorkflow(
			id,
			branches,
			{ baseUrl: proxy.url, apiKey: sandbox.apiKey },
			{
				pauseSeconds: SETTLE_SECONDS + (run.provider.rateLimit ? BUCKET_REFILL_SECONDS : 0),
				settle: true,
			},
		),
	]);
	const memory: RssWatch = { peakMb: 0, samples: [] };
	const result = await executeWorkflowToFile(cli, id, {
		watch: (pid) => watchRss(pid, memory),
		nodeArgs: ['--expose-gc'],
	});
	checkBranchesRanInTurn(branches, result);
	const sample = (branch: Branch): Sample => {
		const { from, to } = branchWindow(branch, result);
		return {
			...sampleOf(branch, result, proxy.records()),
			peakRssMb: peakWithin(memory, from, to),
		};
	};
	return {
		order,
		pairs: rounds.map((cases) => ({ on: sample(cases.on), off: sample(cases.off) })),
	};
}

const ratioOf = (pair: Pair) => pair.on.nodeMs / pair.off.nodeMs;

function progressLine(run: Run & { repetition: number }, order: CaseKey[], pair: Pair): string {
	const caseText = (key: CaseKey) => {
		const sample = pair[key];
		return `${key} node ${formatNumber(sample.nodeMs / 1000, 2)} s (on the wire ${formatNumber(sample.sendingMs / 1000, 2)} s, p99 ${formatNumber(sample.p99LatencyMs)} ms), peak ${formatNumber(sample.peakRssMb)} MB`;
	};
	return `    send once: ${run.provider.label}, ${run.size}, repetition ${run.repetition + 1} (${order[0]} first): ${caseText('on')}; ${caseText('off')}; on ÷ off ${formatNumber(ratioOf(pair), 3)} ×\n`;
}

/**
 * What the send-once record costs in a real n8n 2.40.7: the same campaign with it (Send Once Within 24 h) and without
 * (Send Once Within 0) in one process per repetition, by the sending nodes' time, with the memory of each.
 */
export async function measureSendOnce(
	sandbox: BenchSandbox,
	repetitions: number,
): Promise<ScenarioReport> {
	const runs = selectedRuns();
	const book: PairBook = new Map();
	const repetitionsOf = (run: Run) => 2 * run.provider.orderPairs(repetitions, run.size);
	const most = Math.max(...runs.map(repetitionsOf));
	await withBenchN8n(sandbox, async (cli, proxy) => {
		// Repetitions outermost, so drift over the scenario's time weighs on every run alike.
		for (let repetition = 0; repetition < most; repetition++)
			for (const run of runs) {
				if (repetition >= repetitionsOf(run)) continue;
				const { order, pairs } = await runRepetition(cli, sandbox, proxy, { ...run, repetition });
				book.set(runKey(run), [...(book.get(runKey(run)) ?? []), ...pairs]);
				for (const pair of pairs)
					process.stderr.write(progressLine({ ...run, repetition }, order, pair));
			}
	});
	return sendOnceReport(book, runs, repetitions);
}

function tableRows(run: Run, pairs: Pair[]): string[][] {
	return CASE_KEYS.map((key) => {
		const pick = (of: (sample: Sample) => number) => median(pairs.map((pair) => of(pair[key])));
		return [
			run.provider.label,
			formatNumber(run.size),
			CASES[key].label,
			formatNumber(pick((s) => s.nodeMs) / 1000, 2),
			formatNumber(pick((s) => s.peakRssMb)),
			formatNumber(pick((s) => s.failed + s.duplicates)),
		];
	});
}

/**
 * The geometric mean of each two processes' ratios, one process with send once first and one with it second: the
 * first place's cost counts once on either side and cancels.
 */
function orderBalanced(ratios: number[], perProcess: number): number[] {
	const group = 2 * perProcess;
	const balanced: number[] = [];
	for (let index = 0; index + group <= ratios.length; index += group) {
		const logs = ratios.slice(index, index + group).map(Math.log);
		balanced.push(Math.exp(logs.reduce((sum, value) => sum + value, 0) / group));
	}
	return balanced.length > 0 ? balanced : ratios;
}

function target(run: Run, pairs: Pair[]): TargetCheck {
	const ratios = pairs.map(ratioOf);
	const ratio = median(orderBalanced(ratios, run.provider.roundsPerProcess(run.size)));
	return {
		target: `Send once costs ≤ ${Math.round((TARGET_RATIO - 1) * 100)} % at ${run.provider.label}, ${formatNumber(run.size)} messages (node time, with / without, median over pairs of repetitions in both orders)`,
		measured: `${formatNumber(ratio, 3)} × (${ratios.map((value) => formatNumber(value, 2)).join(', ')})`,
		holds: ratio <= TARGET_RATIO,
	};
}

/** Semicolons between providers: their labels hold commas. */
const perProvider = (text: (provider: CostProvider) => string) =>
	PROVIDERS.map((provider) => `${text(provider)} at ${provider.label}`).join('; ');

/** One count per provider, or one per size where its sizes differ. */
function repetitionsText(repetitions: number): string {
	return perProvider((provider) => {
		const counts = SIZES.map((size) => 2 * provider.orderPairs(repetitions, size));
		if (counts.every((count) => count === counts[0])) return formatNumber(counts[0]);
		const bySize = SIZES.map(
			(size, index) => `${formatNumber(counts[index])} of ${formatNumber(size)}`,
		);
		return `${bySize.join(' and ')} messages`;
	});
}

function setupText(repetitions: number): string {
	return `a real n8n 2.40.7 (n8n execute, SQLite), one process per provider, size and repetition (repetitions: ${repetitionsText(repetitions)}). In each: a warm-up branch with send once and the automatic limit (sends: ${perProvider((provider) => formatNumber(provider.warmUpSends))}), which leaves the pace both cases start from; then the campaign through the Messaging node with Send Once Within 24 h (the default) and with Send Once Within 0, one after the other, in an order that alternates per repetition; at 20 ms and 10,000 messages three more rounds follow, each in the reverse order of the one before (on off off on on off off on: like branches of one process differed by up to 17 %, and the first case after the warm-up costs more whichever it is). Every branch starts after a full collection of n8n's heap and a ${formatNumber(SETTLE_SECONDS)} s pause. 20 ms provider behind the proxy, unlimited at the node's defaults or a 100/s bucket at Max Messages per Second 100 (${formatNumber(BUCKET_REFILL_SECONDS)} s more of that pause refill it). node s = the sending node's executionTime. Each round's ratio with / without comes from one process; the case run first there was measured up to 10 % slower whichever it was, so repetitions go in pairs, send once first then second, and the target is the median over the pairs of the geometric mean of their ratios. The ratios follow in run order (odd repetitions ran send once first). peak MB = the highest resident size of the n8n process sampled (every 100 ms) while that case's branch ran (MB = 10^6 bytes); the second case of a process also holds the first's run data, which n8n keeps until the execution ends. Table: medians over the repetitions.`;
}

export function sendOnceReport(book: PairBook, runs: Run[], repetitions: number): ScenarioReport {
	const measured = runs.map((run) => ({ run, pairs: book.get(runKey(run)) ?? [] }));
	return {
		title: '6. Send once',
		setup: setupText(repetitions),
		measures: [],
		tables: [
			{
				caption: 'Send once against the same run without it',
				header: ['provider', 'messages', 'case', 'node s', 'peak MB', 'lost + duplicated'],
				rows: measured.flatMap(({ run, pairs }) => tableRows(run, pairs)),
			},
		],
		targets: measured.map(({ run, pairs }) => target(run, pairs)),
	};
}
