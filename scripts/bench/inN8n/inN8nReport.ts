import { formatNumber, type Measure, type ScenarioReport, type TargetCheck } from '../report';
import { formatSpread, median, spreadOf } from '../stats';
import { FIXED_SETTINGS, PROVIDERS, YARDSTICK_CONCURRENCY, type Provider } from './cases';
import type { CaseSample } from './samples';

/** Samples per `provider/case`, one per repetition. */
export type SampleBook = Map<string, CaseSample[]>;

const seconds = (ms: number) => formatNumber(ms / 1000, 2);
const whole = (value: number) => formatNumber(value);

function providerOf(key: string): Provider {
	return PROVIDERS.find((provider) => provider.key === key)!;
}

function samplesOf(book: SampleBook, providerKey: string, caseKey: string): CaseSample[] {
	const samples = book.get(`${providerKey}/${caseKey}`);
	if (!samples?.length) throw new Error(`No samples for ${providerKey}/${caseKey}`);
	return samples;
}

function medianOf(
	book: SampleBook,
	providerKey: string,
	caseKey: string,
	pick: (s: CaseSample) => number,
) {
	return median(samplesOf(book, providerKey, caseKey).map(pick));
}

function providerTable(book: SampleBook, provider: Provider) {
	const { latencyMs, jitterMs, kneeInFlight } = provider.shape;
	const limit = provider.rateLimit
		? `, token bucket ${provider.rateLimit.perSecond}/s (burst ${provider.rateLimit.burst}), ${provider.pauseSeconds} s pause before each case`
		: ', no rate limit';
	const knee = kneeInFlight
		? `, latency × in flight ÷ ${kneeInFlight} past ${kneeInFlight} in flight`
		: '';
	return {
		caption: `${provider.label} provider: ${formatNumber(provider.sends)} sends per case, latency ${latencyMs} ms + 0–${jitterMs} ms${knee}${limit}`,
		header: [
			'Sender',
			'node s (executionTime)',
			'workflow s',
			'arrival span s',
			'sends/s by node time',
			'429s',
			'failed / duplicates',
			'p99 latency ms',
		],
		rows: provider.cases.map((entry) => {
			const samples = samplesOf(book, provider.key, entry.key);
			const spread = (pick: (sample: CaseSample) => number, format: (value: number) => string) =>
				formatSpread(spreadOf(samples.map(pick)), format);
			return [
				entry.label,
				spread((sample) => sample.nodeMs, seconds),
				spread((sample) => sample.workflowMs, seconds),
				spread((sample) => sample.arrivalSpanMs, seconds),
				spread(
					(sample) => (provider.sends * 1000) / sample.nodeMs,
					(value) => formatNumber(value, 1),
				),
				spread((sample) => sample.rateLimited, whole),
				`${Math.max(...samples.map((sample) => sample.failed))} / ${Math.max(...samples.map((sample) => sample.duplicates))}`,
				spread((sample) => sample.p99LatencyMs, whole),
			];
		}),
	};
}

/** The defaults against the best fixed setting, by the node's own time and by its time on the wire. */
function bestFixedTarget(book: SampleBook, providerKey: string): TargetCheck {
	const provider = providerOf(providerKey);
	const ratio = (pick: (sample: CaseSample) => number) => {
		const fixed = FIXED_SETTINGS.map((limit) => ({
			limit,
			ms: medianOf(book, providerKey, `fixed${limit}`, pick),
		})).sort((a, b) => a.ms - b.ms)[0];
		return { ...fixed, ratio: fixed.ms / medianOf(book, providerKey, 'auto', pick) };
	};
	const byNode = ratio((sample) => sample.nodeMs);
	const bySending = ratio((sample) => sample.sendingMs);
	return {
		target: `In n8n, ${provider.label} provider: defaults ≥ 0.9 × the best of Max Concurrent Requests ${FIXED_SETTINGS.join(', ')}`,
		measured:
			`${formatNumber(byNode.ratio, 2)} × by node time (best fixed: ${byNode.limit}), ` +
			`${formatNumber(bySending.ratio, 2)} × by time on the wire (best fixed: ${bySending.limit})`,
		holds: byNode.ratio >= 0.9 && bySending.ratio >= 0.9,
	};
}

function bucketTargets(book: SampleBook): TargetCheck[] {
	const provider = providerOf('bucket');
	const { perSecond, burst } = provider.rateLimit!;
	const idealMs = ((provider.sends - burst) / perSecond) * 1000 + provider.shape.latencyMs;
	const automatic = samplesOf(book, 'bucket', 'auto');
	const worst429Share = Math.max(
		...automatic.map((sample) => sample.rateLimited / sample.requests),
	);
	const worstFailed = Math.max(...automatic.map((sample) => sample.failed));
	const sendingRatio = median(automatic.map((sample) => sample.sendingMs)) / idealMs;
	const versusHttp = (pick: (sample: CaseSample) => number) =>
		medianOf(book, 'bucket', 'httpPolite', pick) / medianOf(book, 'bucket', 'auto', pick);
	return [
		{
			target: `In n8n, ${perSecond}/s bucket: defaults ≤ 1 % of requests answered 429, 0 failed items`,
			measured: `${formatNumber(worst429Share * 100, 2)} % (worst repetition), ${worstFailed} failed`,
			holds: worst429Share <= 0.01 && worstFailed === 0,
		},
		{
			target: `In n8n, ${perSecond}/s bucket: defaults' time on the wire ≤ 1.1 × the ideal ${seconds(idealMs)} s`,
			measured: `${formatNumber(sendingRatio, 3)} ×`,
			holds: sendingRatio <= 1.1,
		},
		{
			// By node time both carry their own pass over the items (the node validates all before sending any, the
			// HTTP Request node reads each item's fields between its batches): printed, but the race is on the wire.
			target: `In n8n, ${perSecond}/s bucket: defaults' time on the wire shorter than the HTTP Request node's with Batching ${perSecond} per 1,000 ms`,
			measured: `${formatNumber(
				versusHttp((sample) => sample.sendingMs),
				2,
			)} × by time on the wire (${formatNumber(
				versusHttp((sample) => sample.nodeMs),
				2,
			)} × by node time, information)`,
			holds: versusHttp((sample) => sample.sendingMs) > 1,
		},
	];
}

function overloadTarget(book: SampleBook): TargetCheck {
	const provider = providerOf('knee');
	const unloaded = medianOf(book, 'knee', 'fixed5', (sample) => sample.p99LatencyMs);
	const automatic = samplesOf(book, 'knee', 'auto').map((sample) => sample.p99LatencyMs);
	const worst = Math.max(...automatic);
	return {
		target: `In n8n, provider that ${provider.label}: defaults keep its p99 latency ≤ 2 × its unloaded p99`,
		measured: `${formatNumber(worst / unloaded, 2)} × (worst repetition ${whole(worst)} ms; unloaded, 5 in flight: ${whole(unloaded)} ms)`,
		holds: worst <= 2 * unloaded,
	};
}

function messagingNeverLoses(book: SampleBook, measured: Provider[]): TargetCheck {
	const messaging = measured.flatMap((provider) =>
		provider.cases
			.filter((entry) => entry.sender.kind === 'messaging')
			.flatMap((entry) => samplesOf(book, provider.key, entry.key)),
	);
	const failed = messaging.reduce((sum, sample) => sum + sample.failed, 0);
	const duplicates = messaging.reduce((sum, sample) => sum + sample.duplicates, 0);
	return {
		target: 'In n8n: Messaging node 0 failed items, 0 duplicates in every case and repetition',
		measured: `${failed} failed, ${duplicates} duplicates`,
		holds: failed === 0 && duplicates === 0,
	};
}

/** At equal concurrency, what the node costs beside the least a node can do, and beside the HTTP Request node. */
function yardstickMeasures(book: SampleBook): Measure[] {
	return ['fast', 'slow'].flatMap((providerKey) => {
		const { label } = providerOf(providerKey);
		const fixed = `fixed${YARDSTICK_CONCURRENCY}`;
		const ratio = (caseKey: string, pick: (sample: CaseSample) => number) =>
			formatNumber(
				medianOf(book, providerKey, caseKey, pick) / medianOf(book, providerKey, fixed, pick),
				2,
			);
		return [
			{
				label: `${label}: Messaging node at ${YARDSTICK_CONCURRENCY} / bare-helper node at ${YARDSTICK_CONCURRENCY}, by time on the wire (sending) and by node time (validation included)`,
				value: `${ratio('bare', (sample) => sample.sendingMs)} / ${ratio('bare', (sample) => sample.nodeMs)}`,
			},
			{
				label: `${label}: Messaging node at ${YARDSTICK_CONCURRENCY} / HTTP Request node batching ${YARDSTICK_CONCURRENCY} per latency, by node time`,
				value: ratio('httpBatch', (sample) => sample.nodeMs),
			},
		];
	});
}

export function inN8nReport(book: SampleBook, repetitions: number): ScenarioReport {
	// A run limited to some providers (BENCH_IN_N8N_PROVIDERS) reports those.
	const measured = PROVIDERS.filter((provider) => book.has(`${provider.key}/auto`));
	const ran = (key: string) => measured.some((provider) => provider.key === key);
	return {
		title: '5. In n8n',
		setup:
			`a real n8n 2.40.7 (n8n execute), one workflow per provider and repetition with one branch per case (Manual Trigger → Code rows → sender), ` +
			`run one after another in execution order v1 after an untimed warm-up branch at 50 in flight (${measured.map((provider) => `${provider.label}: ${formatNumber(provider.warmUpSends)} sends`).join('; ')}), the order rotated each of the ${repetitions} repetitions; every request passes a proxy that adds the provider's latency ` +
			"in front of the sandbox. node s = the sending node's executionTime in n8n's run data (its validation pass included); workflow s = from the rows node's start to the " +
			"sending node's end; arrival span = first to last request the provider saw; time on the wire = first request to last answer. The HTTP Request node posts the same form " +
			'fields with On Error "Continue", so its failed rows are counted. Ratios are of medians.',
		measures: ran('fast') && ran('slow') ? yardstickMeasures(book) : [],
		tables: measured.map((provider) => providerTable(book, provider)),
		targets: [
			...(ran('fast') ? [bestFixedTarget(book, 'fast')] : []),
			...(ran('slow') ? [bestFixedTarget(book, 'slow')] : []),
			...(ran('bucket') ? bucketTargets(book) : []),
			...(ran('knee') ? [overloadTarget(book)] : []),
			messagingNeverLoses(book, measured),
		],
	};
}
