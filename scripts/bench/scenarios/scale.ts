import type { BenchSandbox } from '../benchSandbox';
import { firstJsonLine, spawnTypeScript, waitForExit } from '../childProcess';
import { formatNumber } from '../report';
import type { ScenarioReport, TargetCheck } from '../report';
import type { CampaignSender } from '../smsCampaign';
import { median } from '../stats';

const ITEMS = 10_000;
const LARGE_ITEMS = 100_000;
const RSS_TARGET = 1.2;
const LINEAR_TARGET = 1.2;
const BASELINE_ITEMS = 1;
const LATENCY_MS = 1;
const PROBE_LIMIT_MS = 1_800_000;
const BYTES_PER_MB = 1_000_000;

interface ProbeReport {
	items: number;
	delivered: number;
	failed: number;
	wallMs: number;
	firstSendMs: number;
	peakRssBytes: number;
	retainedHeapBytes: number;
}

async function probe(
	sandbox: BenchSandbox,
	items: number,
	runTag: string,
	sender: CampaignSender = 'messaging',
): Promise<ProbeReport> {
	const child = spawnTypeScript(
		'scaleProbe.ts',
		{
			BENCH_SENDER: sender,
			BENCH_ITEMS: String(items),
			BENCH_SANDBOX_URL: sandbox.url,
			BENCH_API_KEY: sandbox.apiKey,
			BENCH_RUN_TAG: runTag,
		},
		['--expose-gc'],
	);
	child.stdin.end();
	try {
		const report = await firstJsonLine<ProbeReport>(
			child,
			PROBE_LIMIT_MS,
			`Scale probe with ${items} items`,
		);
		if (report.delivered !== items)
			throw new Error(
				`Scale probe with ${items} items delivered ${report.delivered} (${report.failed} failed)`,
			);
		return report;
	} finally {
		await waitForExit(child, 10_000);
	}
}

interface SizeFigures {
	items: number;
	nodeExtraMb: number;
	floorExtraMb: number;
	retainedExtraMb: number;
	wallMs: number;
	firstSendMs: number;
}

const mb = (runs: ProbeReport[], pick: (run: ProbeReport) => number) =>
	median(runs.map(pick)) / BYTES_PER_MB;

/**
 * Each run is a fresh process, so one run's heap cannot flatter or burden the next. Each sender's extra is over
 * its own 1-item run: loading the Messaging node (its sources, zod) costs the process about 50 MB that the bare
 * node never loads, and no campaign size changes it.
 */
async function measureSize(
	sandbox: BenchSandbox,
	items: number,
	repetitions: number,
): Promise<SizeFigures> {
	const runs = { base: [], full: [], floorBase: [], floor: [] } as Record<string, ProbeReport[]>;
	for (let repetition = 0; repetition < repetitions; repetition++) {
		const tag = `scale-${items}-${repetition}`;
		runs.base.push(await probe(sandbox, BASELINE_ITEMS, `${tag}-base`));
		runs.full.push(await probe(sandbox, items, `${tag}-full`));
		runs.floorBase.push(await probe(sandbox, BASELINE_ITEMS, `${tag}-floor-base`, 'helper-floor'));
		runs.floor.push(await probe(sandbox, items, `${tag}-floor`, 'helper-floor'));
	}
	const peak = (run: ProbeReport) => run.peakRssBytes;
	const retained = (run: ProbeReport) => run.retainedHeapBytes;
	return {
		items,
		nodeExtraMb: mb(runs.full, peak) - mb(runs.base, peak),
		floorExtraMb: mb(runs.floor, peak) - mb(runs.floorBase, peak),
		retainedExtraMb: mb(runs.full, retained) - mb(runs.base, retained),
		wallMs: median(runs.full.map((run) => run.wallMs)),
		firstSendMs: median(runs.full.map((run) => run.firstSendMs)),
	};
}

/** BENCH_SCALE_SIZES=2000,20000 tries other sizes while investigating; the bench runs 10,000 and 100,000. */
function scaleSizes(): number[] {
	const sizes = (process.env.BENCH_SCALE_SIZES ?? '').split(',').map(Number).filter(Boolean);
	return sizes.length > 0 ? sizes : [ITEMS, LARGE_ITEMS];
}

function sizeMeasures({ items, ...figures }: SizeFigures) {
	const n = formatNumber(items);
	return [
		{
			label: `${n} items: extra peak RSS MB, node / bare-helper node`,
			value: `${formatNumber(figures.nodeExtraMb, 1)} / ${formatNumber(figures.floorExtraMb, 1)}`,
		},
		{
			label: `${n} items: extra heap still reachable after the run (full GC) MB`,
			value: formatNumber(figures.retainedExtraMb, 1),
		},
		{ label: `${n} items: run s`, value: formatNumber(figures.wallMs / 1000, 2) },
		{
			label: `${n} items: time to the first send s`,
			value: formatNumber(figures.firstSendMs / 1000, 2),
		},
		{
			label: `${n} items: share of the run before the first send (validation pass)`,
			value: `${formatNumber((100 * figures.firstSendMs) / figures.wallMs, 1)} %`,
		},
	];
}

function sizeTargets(sizes: SizeFigures[]): TargetCheck[] {
	const targets = sizes.map(({ items, nodeExtraMb, floorExtraMb }) => ({
		target: `Scale: ${formatNumber(items)} items, extra peak RSS ≤ ${RSS_TARGET} × the bare-helper node's`,
		measured: `${formatNumber(nodeExtraMb / floorExtraMb, 2)} ×`,
		holds: nodeExtraMb / floorExtraMb <= RSS_TARGET,
	}));
	if (sizes.length > 1) {
		const [small, large] = [sizes[0], sizes[sizes.length - 1]];
		const perItem = (size: SizeFigures) => size.nodeExtraMb / size.items;
		const growth = perItem(large) / perItem(small);
		targets.push({
			target: `Scale: memory grows linearly (extra peak RSS per item at ${formatNumber(large.items)} ≤ ${LINEAR_TARGET} × at ${formatNumber(small.items)})`,
			measured: `${formatNumber(growth, 2)} ×`,
			holds: growth <= LINEAR_TARGET,
		});
	}
	return targets;
}

export async function measureScale(
	sandbox: BenchSandbox,
	repetitions: number,
): Promise<ScenarioReport> {
	await sandbox.configure({ latency: { fixedMs: LATENCY_MS, jitterMs: 0 }, rateLimit: null });
	const sizes: SizeFigures[] = [];
	// One repetition at the largest size: it is the longest run of the bench by far.
	for (const items of scaleSizes())
		sizes.push(await measureSize(sandbox, items, items > ITEMS ? 1 : repetitions));
	return {
		title: '4. Scale',
		setup:
			`${scaleSizes()
				.map((items) => formatNumber(items))
				.join(
					' and ',
				)} items, each sender against its own ${BASELINE_ITEMS}-item run, each run in a fresh child process (peak RSS from process.resourceUsage().maxRSS); ` +
			`sandbox latency ${LATENCY_MS} ms, node options default; MB = 10^6 bytes; medians of ${repetitions} repetitions (1 above ${formatNumber(ITEMS)} items). ` +
			"The first send is timed at node:http under n8n's HTTP helper; the Messaging node checks every item before it sends any.",
		measures: sizes.flatMap(sizeMeasures),
		targets: sizeTargets(sizes),
	};
}
