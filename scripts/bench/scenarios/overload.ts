import type { BenchSandbox } from '../benchSandbox';
import { formatNumber } from '../report';
import type { ScenarioReport } from '../report';
import { median } from '../stats';
import { auditedNodeRun } from './auditedRun';
import type { AuditedRun } from './auditedRun';
import { PROVIDER_LATENCY, PROVIDER_RATE_LIMIT } from './rateLimit';

const SENDS = 1000;
const CONCURRENCY = 10;
/** The node's default, so the scenario tests what a user gets without tuning; BENCH_OVERLOAD_MAX_TRIES overrides it. */
const DEFAULT_MAX_TRIES_ON_429 = 3;
const MAX_TRIES_ON_429 = Number(process.env.BENCH_OVERLOAD_MAX_TRIES ?? DEFAULT_MAX_TRIES_ON_429);

export async function measureOverload(
	sandbox: BenchSandbox,
	repetitions: number,
): Promise<ScenarioReport> {
	const options = { maxConcurrency: CONCURRENCY, maxPerSecond: 0, maxTries429: MAX_TRIES_ON_429 };
	const runs: AuditedRun[] = [];
	for (let repetition = 0; repetition < repetitions; repetition++) {
		runs.push(
			await auditedNodeRun(
				sandbox,
				`overload-${repetition}`,
				SENDS,
				options,
				PROVIDER_RATE_LIMIT,
				PROVIDER_LATENCY,
			),
		);
	}
	const worst = (pick: (run: AuditedRun) => number) => Math.max(...runs.map(pick));
	const lost = worst((run) => run.lost);
	const duplicates = worst((run) => run.duplicates);
	const failures = worst((run) => run.failed);
	const firstError = runs.find((run) => run.firstError)?.firstError;
	return {
		title: '3. Overload',
		setup:
			`${SENDS} sends; the same sandbox limit and latency; node Max Concurrent Requests ${CONCURRENCY}, no per-second limit, ` +
			`Max Tries per Message = ${MAX_TRIES_ON_429}${MAX_TRIES_ON_429 === DEFAULT_MAX_TRIES_ON_429 ? ', the default' : ''} (Retry-After honoured). Counts are the worst repetition, times the median.` +
			(firstError ? ` First failure: "${firstError}"` : ''),
		measures: [
			{ label: 'failed items (worst run)', value: String(failures) },
			{ label: 'lost items (worst run)', value: String(lost) },
			{ label: 'duplicates (worst run)', value: String(duplicates) },
			{
				label: '429s seen (median)',
				value: formatNumber(median(runs.map((run) => run.rateLimited))),
			},
			{
				label: 'wall time s',
				value: formatNumber(median(runs.map((run) => run.wallMs)) / 1000, 2),
			},
		],
		targets: [
			{ target: 'Overload: zero losses', measured: String(lost), holds: lost === 0 },
			{
				target: 'Overload: zero duplicates',
				measured: String(duplicates),
				holds: duplicates === 0,
			},
		],
	};
}
