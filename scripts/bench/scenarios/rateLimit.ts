import type { BenchSandbox } from '../benchSandbox';
import { formatNumber } from '../report';
import type { ScenarioReport } from '../report';
import { median } from '../stats';
import { auditedNodeRun } from './auditedRun';
import type { AuditedRun } from './auditedRun';

export const PROVIDER_RATE_LIMIT = { perSecond: 100, burst: 10 };
export const PROVIDER_LATENCY = { fixedMs: 20, jitterMs: 5 };
const SENDS = 1000;
const IDEAL_MS = (SENDS / PROVIDER_RATE_LIMIT.perSecond) * 1000;
const TIME_TARGET = 1.1;

export async function measureRateLimit(
	sandbox: BenchSandbox,
	repetitions: number,
): Promise<ScenarioReport> {
	const runs: AuditedRun[] = [];
	for (let repetition = 0; repetition < repetitions; repetition++) {
		runs.push(
			await auditedNodeRun(
				sandbox,
				`rate-${repetition}`,
				SENDS,
				{ maxPerSecond: PROVIDER_RATE_LIMIT.perSecond },
				PROVIDER_RATE_LIMIT,
				PROVIDER_LATENCY,
			),
		);
	}
	const worst = (pick: (run: AuditedRun) => number) => Math.max(...runs.map(pick));
	const wallMs = median(runs.map((run) => run.wallMs));
	const timeRatio = wallMs / IDEAL_MS;
	const failures = worst((run) => run.failed);
	const duplicates = worst((run) => run.duplicates);
	return {
		title: '2. Rate limit',
		setup:
			`${SENDS} sends; sandbox token bucket ${PROVIDER_RATE_LIMIT.perSecond}/s with a burst of ${PROVIDER_RATE_LIMIT.burst}, ` +
			`latency ${PROVIDER_LATENCY.fixedMs} ms + 0–${PROVIDER_LATENCY.jitterMs} ms jitter; node Max Messages per Second ${PROVIDER_RATE_LIMIT.perSecond}, ` +
			'other options default (Max Concurrent Requests automatic, Max Tries per Message = 3). Counts are the worst repetition, times the median.',
		measures: [
			{ label: 'failed items (worst run)', value: String(failures) },
			{ label: 'lost items (worst run)', value: String(worst((run) => run.lost)) },
			{ label: 'duplicates (worst run)', value: String(duplicates) },
			{
				label: '429s seen (median)',
				value: formatNumber(median(runs.map((run) => run.rateLimited))),
			},
			{ label: 'wall time s', value: formatNumber(wallMs / 1000, 2) },
			{ label: 'wall time / ideal 10 s', value: formatNumber(timeRatio, 3) },
			{
				label: 'of which ms before the first send',
				value: formatNumber(median(runs.map((run) => run.msBeforeFirstSend))),
			},
			{
				label: 'of which s from first to last send',
				value: formatNumber(median(runs.map((run) => run.sendSpanMs)) / 1000, 2),
			},
		],
		targets: [
			{ target: 'Rate limit: zero failures', measured: String(failures), holds: failures === 0 },
			{
				target: 'Rate limit: zero duplicates',
				measured: String(duplicates),
				holds: duplicates === 0,
			},
			{
				target: `Rate limit: wall time ≤ ${TIME_TARGET} × ideal`,
				measured: `${formatNumber(timeRatio, 3)} ×`,
				holds: timeRatio <= TIME_TARGET,
			},
		],
	};
}
