import type { BenchSandbox } from '../benchSandbox';
import { sendWithPlainAxios } from '../plainClient';
import { formatNumber } from '../report';
import type { ScenarioReport } from '../report';
import { withinTime } from '../runGuard';
import { campaignRows, sendThroughNode } from '../smsCampaign';
import { median, sendsPerSecond } from '../stats';

const SENDS = 2000;
const WARM_UP_SENDS = 200;
const LATENCY_MS = 20;
/** The node's default Max Concurrent Requests; the plain client gets the same. */
const CONCURRENCY = 5;
const TARGET_RATIO = 0.9;
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

async function nodeSample(sandbox: BenchSandbox, runTag: string, sends = SENDS): Promise<NodeSample> {
	await sandbox.clearRequests();
	const startedAt = Date.now();
	const cpuAtStart = process.cpuUsage();
	const outcome = await withinTime(
		sendThroughNode(campaignRows(sends, runTag), { baseUrl: sandbox.url, apiKey: sandbox.apiKey, options: {} }),
		RUN_LIMIT_MS,
		'Overhead: node run',
	);
	const cpuMs = cpuMsPerSend(cpuAtStart, sends);
	if (outcome.failed > 0) throw new Error(`Overhead: ${outcome.failed} node sends failed without a rate limit: ${outcome.firstError}`);
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

async function plainSample(sandbox: BenchSandbox, runTag: string): Promise<PlainSample> {
	const cpuAtStart = process.cpuUsage();
	const outcome = await withinTime(
		sendWithPlainAxios(campaignRows(SENDS, runTag), sandbox.url, sandbox.apiKey, CONCURRENCY),
		RUN_LIMIT_MS,
		'Overhead: plain axios run',
	);
	if (outcome.failed > 0) throw new Error(`Overhead: ${outcome.failed} plain axios sends failed`);
	return { sendsPerSecond: sendsPerSecond(SENDS, outcome.wallMs), cpuMsPerSend: cpuMsPerSend(cpuAtStart, SENDS) };
}

/**
 * The node and the plain client take turns (node first on even repetitions, plain first on odd ones),
 * so drift in machine load falls on both alike. One untimed warm-up run each lets the JIT settle.
 */
export async function measureOverhead(sandbox: BenchSandbox, repetitions: number): Promise<ScenarioReport> {
	await sandbox.configure({ latency: { fixedMs: LATENCY_MS, jitterMs: 0 }, rateLimit: null });
	await nodeSample(sandbox, 'overhead-warm-node', WARM_UP_SENDS);
	await withinTime(sendWithPlainAxios(campaignRows(WARM_UP_SENDS, 'overhead-warm-plain'), sandbox.url, sandbox.apiKey, CONCURRENCY), RUN_LIMIT_MS, 'Overhead: warm-up');

	const nodeSamples: NodeSample[] = [];
	const plainSamples: PlainSample[] = [];
	for (let repetition = 0; repetition < repetitions; repetition++) {
		const runNode = async () => nodeSamples.push(await nodeSample(sandbox, `overhead-node-${repetition}`));
		const runPlain = async () => plainSamples.push(await plainSample(sandbox, `overhead-plain-${repetition}`));
		if (repetition % 2 === 0) {
			await runNode();
			await runPlain();
		} else {
			await runPlain();
			await runNode();
		}
	}

	const nodeRate = median(nodeSamples.map((sample) => sample.sendsPerSecond));
	const plainRate = median(plainSamples.map((sample) => sample.sendsPerSecond));
	const ratio = nodeRate / plainRate;
	return {
		title: '1. Overhead',
		setup:
			`${SENDS} SMS sends, sandbox latency ${LATENCY_MS} ms (no jitter), concurrency ${CONCURRENCY} for both (the node's default), ` +
			'the same form-encoded body for both; the plain client is axios with its defaults, which keeps connections alive, ' +
			'while n8n-core opens a new connection per request (Connection: close); ' +
			`one untimed warm-up run of ${WARM_UP_SENDS} sends each; runs alternate.`,
		measures: [
			{ label: 'node sends/s', value: formatNumber(nodeRate, 1) },
			{ label: 'plain axios sends/s', value: formatNumber(plainRate, 1) },
			{ label: 'ratio node / plain', value: formatNumber(ratio, 2) },
			{ label: 'node: ms before the first send', value: formatNumber(median(nodeSamples.map((sample) => sample.msBeforeFirstSend))) },
			{ label: 'node: sends/s once sending', value: formatNumber(median(nodeSamples.map((sample) => sample.sendPhasePerSecond)), 1) },
			{ label: 'node CPU ms per send', value: formatNumber(median(nodeSamples.map((sample) => sample.cpuMsPerSend)), 2) },
			{ label: 'plain axios CPU ms per send', value: formatNumber(median(plainSamples.map((sample) => sample.cpuMsPerSend)), 2) },
			{ label: 'ideal sends/s (concurrency / latency)', value: formatNumber((CONCURRENCY * 1000) / LATENCY_MS, 1) },
		],
		targets: [{ target: `Overhead: node ≥ ${TARGET_RATIO} × plain client`, measured: `${formatNumber(ratio, 2)} ×`, holds: ratio >= TARGET_RATIO }],
	};
}
