import fs from 'node:fs';
import path from 'node:path';

import type { N8nCliTarget } from '../../n8n/cli';
import { importWorkflows } from '../../n8n/cli';
import type { BenchSandbox } from '../benchSandbox';
import { executeWorkflowToFile } from '../inN8n/executeToFile';
import { peakWithin, watchRss, type RssWatch } from '../inN8n/peakRss';
import { campaignWorkflow, sendNodeName, type Branch, type Sender } from '../inN8n/workflows';
import type { LatencyProxy } from '../latencyProxy';
import { formatNumber } from '../report';
import type { ScenarioReport, TargetCheck } from '../report';
import { median, rotated } from '../stats';
import { withBenchN8n } from './inN8n';

const ITEMS = 10_000;
const LARGE_ITEMS = 100_000;
const RSS_TARGET = 1.2;
const LINEAR_TARGET = 1.2;
const BASELINE_ITEMS = 1;
const LATENCY_MS = 1;
/** 100,000 sends at 5 in flight through the proxy take about 7 minutes on a loaded machine. */
const RUN_LIMIT_MS = 1_800_000;

/**
 * The in-flight limit both senders are compared at. BENCH_SCALE_BARE_CONCURRENCY changes it while investigating.
 * n8n's HTTP helper makes an agent, a socket and an axios config per request, and each in flight outlives young
 * GCs: the more in flight, the larger the old space. The bare-helper node at 100 in flight took 1,187 MB more for
 * 100,000 items than its 1-item run, at 5 in flight 699 MB.
 */
function comparedConcurrency(): number {
	return Number(process.env.BENCH_SCALE_BARE_CONCURRENCY ?? 5);
}

type SenderKey = 'automatic' | 'fixed' | 'bare';

const SENDERS: Record<SenderKey, () => Sender> = {
	// The node's defaults: its automatic limit climbs towards 100 in flight against a 1 ms provider.
	automatic: () => ({ kind: 'messaging', options: {} }),
	fixed: () => ({ kind: 'messaging', options: { maxConcurrency: comparedConcurrency() } }),
	bare: () => ({ kind: 'bareHelper', maxConcurrent: comparedConcurrency() }),
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
	const result = await executeWorkflowToFile(cli, id, {
		watch: (pid) => watchRss(pid, memory),
		runLimitMs: RUN_LIMIT_MS,
	});
	const send = result.data.resultData.runData[sendNodeName(branch)]?.[0] as TimedRun | undefined;
	if (!send || send.error)
		throw new Error(`Scale run ${run.tag}: the sender failed: ${send?.error?.message ?? 'no run'}`);
	const requests = proxy.records().filter((request) => request.tag === run.tag);
	const accepted = new Set(requests.filter((r) => r.status === 200).map((r) => r.orderId));
	if (accepted.size !== run.items)
		throw new Error(`Scale run ${run.tag}: ${accepted.size} of ${run.items} rows accepted`);
	// BENCH_SCALE_RSS_DIR keeps each run's RSS over time beside the sending node's start and end, to place a peak.
	const rssDir = process.env.BENCH_SCALE_RSS_DIR;
	if (rssDir)
		fs.writeFileSync(
			path.join(rssDir, `${run.tag}.json`),
			JSON.stringify({
				node: { from: send.startTime, to: send.startTime + send.executionTime },
				...memory,
			}),
		);
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

/** One sender at one size, over its own 1-item run. */
interface SenderFigures {
	extraMb: number;
	whileSendingMb: number;
	nodeMs: number;
	firstSendMs: number;
	validationShare: number;
}

interface SizeFigures {
	items: number;
	repetitions: number;
	senders: Record<SenderKey, SenderFigures>;
}

type Slot = SenderKey | 'base' | 'bareBase';
type Runs = Record<Slot, RunFigures[]>;

const pick = (runs: RunFigures[], of: (run: RunFigures) => number) => median(runs.map(of));

function senderFigures(runs: RunFigures[], base: RunFigures[]): SenderFigures {
	const basePeak = pick(base, (run) => run.peakMb);
	return {
		extraMb: pick(runs, (run) => run.peakMb) - basePeak,
		whileSendingMb: pick(runs, (run) => run.whileSendingMb) - basePeak,
		nodeMs: pick(runs, (run) => run.nodeMs),
		firstSendMs: pick(runs, (run) => run.firstSendMs),
		validationShare: pick(runs, (run) => run.firstSendMs / run.nodeMs),
	};
}

function sizeFigures(items: number, runs: Runs): SizeFigures {
	return {
		items,
		repetitions: runs.bare.length,
		senders: {
			automatic: senderFigures(runs.automatic, runs.base),
			fixed: senderFigures(runs.fixed, runs.base),
			bare: senderFigures(runs.bare, runs.bareBase),
		},
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
	const runs: Runs = { base: [], automatic: [], fixed: [], bareBase: [], bare: [] };
	const plan: Array<[Slot, SenderKey, number]> = [
		['base', 'automatic', BASELINE_ITEMS],
		['automatic', 'automatic', items],
		['fixed', 'fixed', items],
		['bareBase', 'bare', BASELINE_ITEMS],
		['bare', 'bare', items],
	];
	const stamp = Date.now().toString(36);
	for (let repetition = 0; repetition < repetitions; repetition++) {
		for (const [slot, sender, count] of rotated(plan, repetition)) {
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

function senderLabel(sender: SenderKey): string {
	if (sender === 'automatic') return 'Messaging node, defaults (automatic)';
	if (sender === 'fixed') return `Messaging node, Max Concurrent Requests ${comparedConcurrency()}`;
	return `bare-helper node, ${comparedConcurrency()} in flight`;
}

function sizeRows(size: SizeFigures): string[][] {
	const mb = (value: number) => formatNumber(value, 1);
	return (Object.keys(SENDERS) as SenderKey[]).map((sender) => {
		const figures = size.senders[sender];
		const checksFirst = sender !== 'bare';
		return [
			formatNumber(size.items),
			senderLabel(sender),
			mb(figures.extraMb),
			`${formatNumber(figures.extraMb / size.senders.bare.extraMb, 2)} ×`,
			mb(figures.whileSendingMb),
			formatNumber(figures.nodeMs / 1000, 2),
			formatNumber(figures.firstSendMs / 1000, 2),
			checksFirst ? `${formatNumber(100 * figures.validationShare, 1)} %` : '–',
		];
	});
}

const extraOf = (size: SizeFigures, sender: SenderKey) => size.senders[sender].extraMb;

/** Like with like: the Messaging node and the bare-helper node at the same in-flight limit. */
function sizeTargets(sizes: SizeFigures[]): TargetCheck[] {
	const targets = sizes.map((size) => {
		const ratio = extraOf(size, 'fixed') / extraOf(size, 'bare');
		return {
			target: `Scale: ${formatNumber(size.items)} items in n8n, extra peak RSS ≤ ${RSS_TARGET} × the bare-helper node's, both at ${comparedConcurrency()} in flight`,
			measured: `${formatNumber(ratio, 2)} × (${formatNumber(extraOf(size, 'fixed'), 1)} / ${formatNumber(extraOf(size, 'bare'), 1)} MB)`,
			holds: ratio <= RSS_TARGET,
		};
	});
	if (sizes.length > 1) {
		const [small, large] = [sizes[0], sizes[sizes.length - 1]];
		const perItem = (size: SizeFigures) => extraOf(size, 'fixed') / size.items;
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
	const sizes = await withBenchN8n(sandbox, async (cli, proxy) => {
		proxy.shape({ latencyMs: LATENCY_MS, jitterMs: 0 });
		const api = { baseUrl: proxy.url, apiKey: sandbox.apiKey };
		const measured: SizeFigures[] = [];
		// One repetition above 10,000 items: the longest runs of the bench by far.
		for (const items of scaleSizes())
			measured.push(await measureSize(cli, proxy, api, items, items > ITEMS ? 1 : repetitions));
		return measured;
	});
	return scaleReport(sizes, repetitions);
}

function scaleReport(sizes: SizeFigures[], repetitions: number): ScenarioReport {
	return {
		title: '4. Scale',
		setup:
			`a real n8n 2.40.7 (n8n execute, SQLite), one process per run: Manual Trigger → Code rows → sender, the Messaging node at its defaults and at Max Concurrent Requests ${comparedConcurrency()}, the bare-helper node at ${comparedConcurrency()} in flight, each node against its own ${BASELINE_ITEMS}-item run, runs in rotated order; ` +
			`${LATENCY_MS} ms provider behind the proxy. Extra peak = the n8n process's VmHWM minus its ${BASELINE_ITEMS}-item run's; while sending = the highest RSS sampled (every 100 ms) while the sending node ran, minus the same. ` +
			`First send = from the sending node's start to the provider's first request: the Messaging node checks every item before it sends any. MB = 10^6 bytes; medians of ${repetitions} repetitions (1 above ${formatNumber(ITEMS)} items).`,
		measures: [],
		tables: [
			{
				caption: `Memory and time by campaign size (${sizes.map((size) => `${formatNumber(size.items)}: ${size.repetitions}`).join(', ')} repetitions)`,
				header: [
					'items',
					'sender',
					'extra peak MB',
					'× bare',
					'extra while sending MB',
					'node s',
					'first send s',
					'validation share',
				],
				rows: sizes.flatMap(sizeRows),
			},
		],
		targets: sizeTargets(sizes),
	};
}
