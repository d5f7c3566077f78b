import type { BenchSandbox } from '../benchSandbox';
import { sendWithPlainAxios } from '../plainClient';
import type { PlainConnections } from '../plainClient';
import { formatNumber } from '../report';
import type { ScenarioReport } from '../report';
import { withinTime } from '../runGuard';
import { campaignRows } from '../campaignRows';
import { sendThroughNode } from '../smsCampaign';
import type { CampaignSender } from '../smsCampaign';
import { median, sendsPerSecond } from '../stats';

const SENDS = 2000;
const WARM_UP_SENDS = 200;
const LATENCY_MS = 20;
/** The node's Max Concurrent Requests here; the plain client and the bare-helper node get the same. */
const CONCURRENCY = 5;
const RUN_LIMIT_MS = 180_000;

interface NodeSample {
	sendsPerSecond: number;
	/** From the start of the run to the first request the sandbox saw: n8n set-up plus the node's validation pass. */
	msBeforeFirstSend: number;
	/** Sends per second between the first and the last request: the sending phase alone. */
	sendPhasePerSecond: number;
	cpuMsPerSend: number;
}

interface PlainSample {
	sendsPerSecond: number;
	cpuMsPerSend: number;
}

/** CPU time of this process (user + system) per send: less sensitive than wall time to other load on the machine. */
function cpuMsPerSend(since: NodeJS.CpuUsage, sends: number): number {
	const used = process.cpuUsage(since);
	return (used.user + used.system) / 1000 / sends;
}

async function nodeSample(
	sandbox: BenchSandbox,
	runTag: string,
	sends = SENDS,
	sender: CampaignSender = 'messaging',
): Promise<NodeSample> {
	await sandbox.clearHistory();
	const startedAt = Date.now();
	const cpuAtStart = process.cpuUsage();
	const outcome = await withinTime(
		sendThroughNode(
			campaignRows(sends, runTag),
			{ baseUrl: sandbox.url, apiKey: sandbox.apiKey, options: { maxConcurrency: CONCURRENCY } },
			sender,
		),
		RUN_LIMIT_MS,
		`Overhead: ${sender} node run`,
	);
	const cpuMs = cpuMsPerSend(cpuAtStart, sends);
	if (outcome.failed > 0)
		throw new Error(
			`Overhead: ${outcome.failed} node sends failed without a rate limit: ${outcome.firstError}`,
		);
	const requests = await sandbox.requests();
	const firstAt = requests[0].receivedAt;
	const lastAt = requests[requests.length - 1].receivedAt;
	return {
		sendsPerSecond: sendsPerSecond(sends, outcome.wallMs),
		msBeforeFirstSend: firstAt - startedAt,
		sendPhasePerSecond: sendsPerSecond(sends - 1, Math.max(1, lastAt - firstAt)),
		cpuMsPerSend: cpuMs,
	};
}

async function plainSample(
	sandbox: BenchSandbox,
	runTag: string,
	connections: PlainConnections,
	sends = SENDS,
): Promise<PlainSample> {
	const cpuAtStart = process.cpuUsage();
	const outcome = await withinTime(
		sendWithPlainAxios(
			campaignRows(sends, runTag),
			sandbox.url,
			sandbox.apiKey,
			CONCURRENCY,
			connections,
		),
		RUN_LIMIT_MS,
		`Overhead: plain axios run (${connections})`,
	);
	if (outcome.failed > 0)
		throw new Error(`Overhead: ${outcome.failed} plain axios sends failed (${connections})`);
	return {
		sendsPerSecond: sendsPerSecond(sends, outcome.wallMs),
		cpuMsPerSend: cpuMsPerSend(cpuAtStart, sends),
	};
}

/**
 * The node and the two plain clients take turns, each repetition starting one later in the rotation,
 * so drift in machine load falls on all alike. One untimed warm-up run each lets the JIT settle.
 */
export async function measureOverhead(
	sandbox: BenchSandbox,
	repetitions: number,
): Promise<ScenarioReport> {
	await sandbox.configure({ latency: { fixedMs: LATENCY_MS, jitterMs: 0 }, rateLimit: null });
	await nodeSample(sandbox, 'overhead-warm-node', WARM_UP_SENDS);
	await plainSample(sandbox, 'overhead-warm-plain', 'keep-alive', WARM_UP_SENDS);
	await plainSample(
		sandbox,
		'overhead-warm-plain-closing',
		'connection-per-request',
		WARM_UP_SENDS,
	);
	await nodeSample(sandbox, 'overhead-warm-floor', WARM_UP_SENDS, 'helper-floor');

	const nodeSamples: NodeSample[] = [];
	const plainSamples: PlainSample[] = [];
	const closingPlainSamples: PlainSample[] = [];
	const floorSamples: NodeSample[] = [];
	for (let repetition = 0; repetition < repetitions; repetition++) {
		const runs = [
			async () => nodeSamples.push(await nodeSample(sandbox, `overhead-node-${repetition}`)),
			async () =>
				plainSamples.push(await plainSample(sandbox, `overhead-plain-${repetition}`, 'keep-alive')),
			async () =>
				closingPlainSamples.push(
					await plainSample(
						sandbox,
						`overhead-plain-closing-${repetition}`,
						'connection-per-request',
					),
				),
			async () =>
				floorSamples.push(
					await nodeSample(sandbox, `overhead-floor-${repetition}`, SENDS, 'helper-floor'),
				),
		];
		for (let turn = 0; turn < runs.length; turn++) await runs[(repetition + turn) % runs.length]();
	}

	const nodeRate = median(nodeSamples.map((sample) => sample.sendsPerSecond));
	const plainRate = median(plainSamples.map((sample) => sample.sendsPerSecond));
	const closingPlainRate = median(closingPlainSamples.map((sample) => sample.sendsPerSecond));
	const floorRate = median(floorSamples.map((sample) => sample.sendsPerSecond));
	const ratio = nodeRate / floorRate;
	return {
		title: '1. Overhead',
		setup:
			`${SENDS} SMS sends, sandbox latency ${LATENCY_MS} ms (no jitter), concurrency ${CONCURRENCY} for all (the node's Max Concurrent Requests set to it), ` +
			'the same form-encoded body for all; the plain client of the target is axios with its defaults, which keeps connections alive, ' +
			'while n8n-core opens a new connection per request (Connection: close); a second plain client, shown for comparison only, ' +
			'is the same axios loop with a new keep-alive-off http.Agent per request, as n8n-core does, so the ratio against it is the cost of ' +
			'the node and n8n around the request rather than of the connection per request; ' +
			`one untimed warm-up run of ${WARM_UP_SENDS} sends each; runs rotate. The node / bare-helper ratio is information, not a target: ` +
			"the gap is the pass that validates every item before any is sent, most of it spent in n8n's expression engine.",
		measures: [
			{ label: 'node sends/s', value: formatNumber(nodeRate, 1) },
			{ label: 'plain axios sends/s', value: formatNumber(plainRate, 1) },
			{ label: 'ratio node / plain', value: formatNumber(nodeRate / plainRate, 2) },
			{
				label: 'plain axios, a connection per request, sends/s',
				value: formatNumber(closingPlainRate, 1),
			},
			{
				label: 'ratio node / plain with a connection per request',
				value: formatNumber(nodeRate / closingPlainRate, 2),
			},
			{
				label: 'node: ms before the first send',
				value: formatNumber(median(nodeSamples.map((sample) => sample.msBeforeFirstSend))),
			},
			{
				label: 'node: sends/s once sending',
				value: formatNumber(median(nodeSamples.map((sample) => sample.sendPhasePerSecond)), 1),
			},
			{
				label: 'node CPU ms per send',
				value: formatNumber(median(nodeSamples.map((sample) => sample.cpuMsPerSend)), 2),
			},
			{
				label: 'plain axios CPU ms per send',
				value: formatNumber(median(plainSamples.map((sample) => sample.cpuMsPerSend)), 2),
			},
			{
				label: 'plain axios, a connection per request, CPU ms per send',
				value: formatNumber(median(closingPlainSamples.map((sample) => sample.cpuMsPerSend)), 2),
			},
			{ label: 'bare-helper node sends/s', value: formatNumber(floorRate, 1) },
			{ label: 'ratio bare-helper node / plain', value: formatNumber(floorRate / plainRate, 2) },
			{ label: 'ratio node / bare-helper node (information)', value: formatNumber(ratio, 2) },
			{
				label: 'bare-helper node CPU ms per send',
				value: formatNumber(median(floorSamples.map((sample) => sample.cpuMsPerSend)), 2),
			},
			{
				label: 'ideal sends/s (concurrency / latency)',
				value: formatNumber((CONCURRENCY * 1000) / LATENCY_MS, 1),
			},
		],
		targets: [],
	};
}
