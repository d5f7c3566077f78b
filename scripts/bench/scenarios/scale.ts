import fs from 'node:fs';

import type { N8nCliTarget } from '../../n8n/cli';
import { importWorkflows } from '../../n8n/cli';
import type { BenchSandbox } from '../benchSandbox';
import { executeWorkflowToFile } from '../inN8n/executeToFile';
import { peakWithin, watchRss, type RssWatch } from '../inN8n/peakRss';
import { campaignWorkflow, sendNodeName, type Branch, type Sender } from '../inN8n/workflows';
import { startLatencyProxy, type LatencyProxy } from '../latencyProxy';
import { formatNumber } from '../report';
import type { ScenarioReport, TargetCheck } from '../report';
import { median } from '../stats';
import { prepareN8n } from './inN8n';

const ITEMS = 10_000;
const LARGE_ITEMS = 100_000;
const RSS_TARGET = 1.2;
const LINEAR_TARGET = 1.2;
const BASELINE_ITEMS = 1;
const LATENCY_MS = 1;
/** 100,000 sends at 5 in flight through the proxy take about 7 minutes on a loaded machine. */
const RUN_LIMIT_MS = 1_800_000;

/**
 * The bare-helper node's concurrency. BENCH_SCALE_BARE_CONCURRENCY changes it while investigating (the
 * Messaging node's automatic limit climbs to about 100 in flight against a 1 ms provider).
 */
function bareConcurrency(): number {
	return Number(process.env.BENCH_SCALE_BARE_CONCURRENCY ?? 5);
}

type SenderKey = 'messaging' | 'bare';

const SENDERS: Record<SenderKey, () => Sender> = {
	messaging: () => ({ kind: 'messaging', options: {} }),
	bare: () => ({ kind: 'bareHelper', maxConcurrent: bareConcurrency() }),
};

interface RunFigures {
	/** The n8n process's peak resident memory (VmHWM), MB. */
	peakMb: number;
	/** The highest resident size sampled while the sending node ran, MB. */
	whileSendingMb: number;
	nodeMs: number;
	/** From the sending node's start to the first request the provider received. */
	firstSendMs: number;
}

interface TimedRun {
	startTime: number;
	executionTime: number;
	error?: { message?: string };
}

/** One `n8n execute` of Manual Trigger → Code rows → sender: one size, one sender, a process of its own. */
async function runOnce(
	cli: N8nCliTarget,
	proxy: LatencyProxy,
	api: { baseUrl: string; apiKey: string },
	run: { sender: SenderKey; items: number; tag: string },
): Promise<RunFigures> {
	proxy.clear();
	const branch: Branch = {
		key: run.sender,
		runTag: run.tag,
		count: run.items,
		sender: SENDERS[run.sender](),
	};
	const id = `scale${run.tag}`.replace(/[^a-zA-Z0-9]/g, '').slice(0, 16);
	await importWorkflows(cli, [campaignWorkflow(id, [branch], api)]);
	const memory: RssWatch = { peakMb: 0, samples: [] };
	const result = await executeWorkflowToFile(cli, id, (pid) => watchRss(pid, memory), RUN_LIMIT_MS);
	const send = result.data.resultData.runData[sendNodeName(branch)]?.[0] as TimedRun | undefined;
	if (!send || send.error)
		throw new Error(`Scale run ${run.tag}: the sender failed: ${send?.error?.message ?? 'no run'}`);
	const requests = proxy.records().filter((request) => request.tag === run.tag);
	const accepted = new Set(requests.filter((r) => r.status === 200).map((r) => r.orderId));
	if (accepted.size !== run.items)
		throw new Error(`Scale run ${run.tag}: ${accepted.size} of ${run.items} rows accepted`);
	const firstAt = requests.reduce(
		(first, request) => Math.min(first, request.receivedAt),
		Infinity,
	);
	const endAt = send.startTime + send.executionTime;
	return {
		peakMb: memory.peakMb,
		whileSendingMb: peakWithin(memory, send.startTime, endAt),
		nodeMs: send.executionTime,
		firstSendMs: firstAt - send.startTime,
	};
}

interface SizeFigures {
	items: number;
	repetitions: number;
	nodeExtraMb: number;
	bareExtraMb: number;
	nodeWhileSendingMb: number;
	bareWhileSendingMb: number;
	nodeMs: number;
	bareMs: number;
	firstSendMs: number;
	validationShare: number;
}

type Runs = Record<'base' | 'full' | 'bareBase' | 'bare', RunFigures[]>;

const pick = (runs: RunFigures[], of: (run: RunFigures) => number) => median(runs.map(of));

function sizeFigures(items: number, runs: Runs): SizeFigures {
	const peak = (run: RunFigures) => run.peakMb;
	const whileSending = (run: RunFigures) => run.whileSendingMb;
	return {
		items,
		repetitions: runs.full.length,
		nodeExtraMb: pick(runs.full, peak) - pick(runs.base, peak),
		bareExtraMb: pick(runs.bare, peak) - pick(runs.bareBase, peak),
		nodeWhileSendingMb: pick(runs.full, whileSending) - pick(runs.base, peak),
		bareWhileSendingMb: pick(runs.bare, whileSending) - pick(runs.bareBase, peak),
		nodeMs: pick(runs.full, (run) => run.nodeMs),
		bareMs: pick(runs.bare, (run) => run.nodeMs),
		firstSendMs: pick(runs.full, (run) => run.firstSendMs),
		validationShare: pick(runs.full, (run) => run.firstSendMs / run.nodeMs),
	};
}

/**
 * Each sender's extra is over its own 1-item run, in a process of its own: n8n's start, the loaded node (the
 * Messaging node's sources and zod, about 50 MB the bare node never loads) and SQLite are in both and cancel out.
 * The order of the four runs turns each repetition, so drift on a shared machine falls on every run alike.
 */
async function measureSize(
	cli: N8nCliTarget,
	proxy: LatencyProxy,
	api: { baseUrl: string; apiKey: string },
	items: number,
	repetitions: number,
): Promise<SizeFigures> {
	const runs: Runs = { base: [], full: [], bareBase: [], bare: [] };
	const plan: Array<[keyof Runs, SenderKey, number]> = [
		['base', 'messaging', BASELINE_ITEMS],
		['full', 'messaging', items],
		['bareBase', 'bare', BASELINE_ITEMS],
		['bare', 'bare', items],
	];
	const stamp = Date.now().toString(36);
	for (let repetition = 0; repetition < repetitions; repetition++) {
		const shift = (2 * repetition) % plan.length;
		for (const [slot, sender, count] of [...plan.slice(shift), ...plan.slice(0, shift)]) {
			const tag = `${items}${slot}${repetition}${stamp}`;
			const figures = await runOnce(cli, proxy, api, { sender, items: count, tag });
			runs[slot].push(figures);
			process.stderr.write(
				`    scale: ${formatNumber(items)} ${slot}: peak ${formatNumber(figures.peakMb)} MB, while sending ${formatNumber(figures.whileSendingMb)} MB, node ${formatNumber(figures.nodeMs / 1000, 2)} s, first send ${formatNumber(figures.firstSendMs / 1000, 2)} s\n`,
			);
		}
	}
	return sizeFigures(items, runs);
}

/** BENCH_SCALE_SIZES=2000,20000 tries other sizes while investigating; the bench runs 10,000 and 100,000. */
function scaleSizes(): number[] {
	const sizes = (process.env.BENCH_SCALE_SIZES ?? '').split(',').map(Number).filter(Boolean);
	return sizes.length > 0 ? sizes : [ITEMS, LARGE_ITEMS];
}

function sizeRow(size: SizeFigures): string[] {
	const mb = (value: number) => formatNumber(value, 1);
	return [
		formatNumber(size.items),
		String(size.repetitions),
		`${mb(size.nodeExtraMb)} / ${mb(size.bareExtraMb)}`,
		`${mb(size.nodeWhileSendingMb)} / ${mb(size.bareWhileSendingMb)}`,
		`${formatNumber(size.nodeMs / 1000, 2)} / ${formatNumber(size.bareMs / 1000, 2)}`,
		formatNumber(size.firstSendMs / 1000, 2),
		`${formatNumber(100 * size.validationShare, 1)} %`,
	];
}

function sizeTargets(sizes: SizeFigures[]): TargetCheck[] {
	const targets = sizes.map(({ items, nodeExtraMb, bareExtraMb }) => ({
		target: `Scale: ${formatNumber(items)} items in n8n, extra peak RSS ≤ ${RSS_TARGET} × the bare-helper node's`,
		measured: `${formatNumber(nodeExtraMb / bareExtraMb, 2)} × (${formatNumber(nodeExtraMb, 1)} / ${formatNumber(bareExtraMb, 1)} MB)`,
		holds: nodeExtraMb / bareExtraMb <= RSS_TARGET,
	}));
	if (sizes.length > 1) {
		const [small, large] = [sizes[0], sizes[sizes.length - 1]];
		const perItem = (size: SizeFigures) => size.nodeExtraMb / size.items;
		const growth = perItem(large) / perItem(small);
		targets.push({
			target: `Scale: memory grows linearly (extra peak RSS per item at ${formatNumber(large.items)} ≤ ${LINEAR_TARGET} × at ${formatNumber(small.items)})`,
			measured: `${formatNumber(growth, 2)} × (${formatNumber(1000 * perItem(large), 1)} vs ${formatNumber(1000 * perItem(small), 1)} KB per item)`,
			holds: growth <= LINEAR_TARGET,
		});
	}
	return targets;
}

/**
 * The campaign at 10,000 and 100,000 items in a real n8n 2.40.7 (`n8n execute`, the package installed from its
 * tarball), through the Messaging node at its defaults and through the bare-helper node: the n8n process's peak
 * resident memory, the time to the first send and the validation pass's share of the node's run.
 */
export async function measureScale(
	sandbox: BenchSandbox,
	repetitions: number,
): Promise<ScenarioReport> {
	await sandbox.configure({ latency: null, rateLimit: null });
	const proxy = await startLatencyProxy(sandbox.url);
	proxy.shape({ latencyMs: LATENCY_MS, jitterMs: 0 });
	const sizes: SizeFigures[] = [];
	let cli: N8nCliTarget | undefined;
	try {
		cli = await prepareN8n(sandbox, proxy);
		const api = { baseUrl: proxy.url, apiKey: sandbox.apiKey };
		// One repetition above 10,000 items: the longest runs of the bench by far.
		for (const items of scaleSizes())
			sizes.push(await measureSize(cli, proxy, api, items, items > ITEMS ? 1 : repetitions));
	} finally {
		await proxy.stop();
	}
	fs.rmSync(cli.userFolder, { recursive: true, force: true });
	return scaleReport(sizes, repetitions);
}

function scaleReport(sizes: SizeFigures[], repetitions: number): ScenarioReport {
	return {
		title: '4. Scale',
		setup:
			`a real n8n 2.40.7 (n8n execute, SQLite), one process per run: Manual Trigger → Code rows → sender, the Messaging node at its defaults or the bare-helper node at ${bareConcurrency()} in flight, each against its own ${BASELINE_ITEMS}-item run; ` +
			`${LATENCY_MS} ms provider behind the proxy. Extra peak = the n8n process's VmHWM minus its ${BASELINE_ITEMS}-item run's; while sending = the highest RSS sampled (every 100 ms) while the sending node ran, minus the same. ` +
			`First send = from the sending node's start to the provider's first request: the Messaging node checks every item before it sends any. MB = 10^6 bytes; medians of ${repetitions} repetitions (1 above ${formatNumber(ITEMS)} items).`,
		measures: [],
		tables: [
			{
				caption: 'Memory and time by campaign size (Messaging node / bare-helper node)',
				header: [
					'items',
					'runs',
					'extra peak MB',
					'extra while sending MB',
					'node s',
					'first send s',
					'validation share',
				],
				rows: sizes.map(sizeRow),
			},
		],
		targets: sizeTargets(sizes),
	};
}
