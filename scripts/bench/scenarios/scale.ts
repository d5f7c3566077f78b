import type { BenchSandbox } from '../benchSandbox';
import { firstJsonLine, spawnTypeScript, waitForExit } from '../childProcess';
import { formatNumber } from '../report';
import type { ScenarioReport } from '../report';
import type { CampaignSender } from '../smsCampaign';
import { median } from '../stats';

const ITEMS = 10_000;
const BASELINE_ITEMS = 1;
const LATENCY_MS = 1;
const PROBE_LIMIT_MS = 180_000;
const BYTES_PER_MB = 1_000_000;

interface ProbeReport {
	items: number;
	delivered: number;
	failed: number;
	wallMs: number;
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

/** Each run is a fresh process, so one run's heap cannot flatter or burden the next; baseline and full runs alternate. */
export async function measureScale(
	sandbox: BenchSandbox,
	repetitions: number,
): Promise<ScenarioReport> {
	await sandbox.configure({ latency: { fixedMs: LATENCY_MS, jitterMs: 0 }, rateLimit: null });
	const baselines: ProbeReport[] = [];
	const fullRuns: ProbeReport[] = [];
	const floorRuns: ProbeReport[] = [];
	for (let repetition = 0; repetition < repetitions; repetition++) {
		baselines.push(await probe(sandbox, BASELINE_ITEMS, `scale-base-${repetition}`));
		fullRuns.push(await probe(sandbox, ITEMS, `scale-full-${repetition}`));
		floorRuns.push(await probe(sandbox, ITEMS, `scale-floor-${repetition}`, 'helper-floor'));
	}
	const baselineMb = median(baselines.map((run) => run.peakRssBytes)) / BYTES_PER_MB;
	const fullMb = median(fullRuns.map((run) => run.peakRssBytes)) / BYTES_PER_MB;
	const extraMb = fullMb - baselineMb;
	const floorExtraMb = median(floorRuns.map((run) => run.peakRssBytes)) / BYTES_PER_MB - baselineMb;
	const retainedExtraMb =
		(median(fullRuns.map((run) => run.retainedHeapBytes)) -
			median(baselines.map((run) => run.retainedHeapBytes))) /
		BYTES_PER_MB;
	return {
		title: '4. Scale',
		setup:
			`${formatNumber(ITEMS)} items vs a ${BASELINE_ITEMS}-item run, each in a fresh child process (peak RSS from process.resourceUsage().maxRSS); ` +
			`sandbox latency ${LATENCY_MS} ms, node options default; MB = 10^6 bytes. The ratio to the bare-helper node is information, not a target: ` +
			'the node holds every validated request until it is sent, the price of validating all items before sending any.',
		measures: [
			{ label: `peak RSS, ${BASELINE_ITEMS} item MB`, value: formatNumber(baselineMb, 1) },
			{ label: `peak RSS, ${formatNumber(ITEMS)} items MB`, value: formatNumber(fullMb, 1) },
			{ label: 'extra peak RSS MB', value: formatNumber(extraMb, 1) },
			{
				label: 'extra heap still reachable after the run (full GC) MB',
				value: formatNumber(retainedExtraMb, 1),
			},
			{
				label: `${formatNumber(ITEMS)}-item run s`,
				value: formatNumber(median(fullRuns.map((run) => run.wallMs)) / 1000, 2),
			},
			{
				label: `bare-helper node, ${formatNumber(ITEMS)} items: extra peak RSS MB`,
				value: formatNumber(floorExtraMb, 1),
			},
			{
				label: 'ratio extra peak RSS node / bare-helper node (information)',
				value: formatNumber(extraMb / floorExtraMb, 2),
			},
		],
		targets: [],
	};
}
