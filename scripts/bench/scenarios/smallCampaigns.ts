import {
	importCredentials,
	importWorkflows,
	publishWorkflow,
	type ExecutionResult,
	type N8nCliTarget,
} from '../../n8n/cli';
import type { BenchSandbox } from '../benchSandbox';
import { executeWorkflowToFile } from '../inN8n/executeToFile';
import { FIXED_SETTINGS } from '../inN8n/cases';
import {
	checkCasesRanInTurn,
	FIRST,
	fixedKey,
	samplesPerRepetition,
	SECOND,
	sizeCredential,
	SMALL_PROVIDERS,
	SMALL_SIZES,
	smallBranches,
	smallRounds,
	smallSample,
	secondExecutionWorkflow,
	subWorkflowId,
	type SmallBranch,
	type SmallSample,
} from '../inN8n/smallCampaigns';
import { campaignWorkflow, type Branch } from '../inN8n/workflows';
import type { LatencyProxy } from '../latencyProxy';
import { formatNumber, type ScenarioReport, type TargetCheck } from '../report';
import { median } from '../stats';
import { inN8nRepetitions, selectedByEnv } from './inN8n';

const FIRST_TARGET = 0.6;
const SECOND_TARGET = 0.9;
const WARM_UP_SENDS = 200;
/**
 * n8n 2.40.7 runs a sub-workflow from the copy its publication service keeps, which only a running n8n fills in;
 * `n8n execute` alone finds none. Without the service it runs the version `n8n publish:workflow` set active.
 */
const READS_PUBLISHED_FROM_WORKFLOW = { N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'false' };

/** BENCH_SMALL_PROVIDERS=fast runs one provider while investigating. */
const selectedProviders = () => selectedByEnv(SMALL_PROVIDERS, 'BENCH_SMALL_PROVIDERS');

/** Samples per `provider/size/case`: `samplesPerRepetition(size)` per repetition. */
type SmallBook = Map<string, SmallSample[]>;

const bookKey = (provider: string, size: number, caseKey: string) =>
	`${provider}/${size}/${caseKey}`;

/** One workflow: an untimed warm-up, then every case; the second executions are sub-workflows it calls. */
function workflowOf(id: string, branches: SmallBranch[], api: { baseUrl: string; apiKey: string }) {
	const warmUp: Branch = {
		key: 'warmUp',
		runTag: `${id}-warmUp`,
		count: WARM_UP_SENDS,
		sender: { kind: 'messaging', options: { maxConcurrency: 20 } },
	};
	return campaignWorkflow(id, [warmUp, ...branches], api);
}

async function runProvider(
	cli: N8nCliTarget,
	sandbox: BenchSandbox,
	proxy: LatencyProxy,
	provider: (typeof SMALL_PROVIDERS)[number],
	repetition: number,
	book: SmallBook,
): Promise<void> {
	await sandbox.configure({ latency: null, rateLimit: null });
	await sandbox.clearHistory();
	proxy.shape(provider.shape);
	proxy.clear();
	const stamp = Date.now().toString(36);
	const branches = smallBranches(provider.key, repetition, stamp);
	const id = `small${provider.key}${repetition}${stamp}`;
	await importWorkflows(cli, [
		workflowOf(id, branches, { baseUrl: proxy.url, apiKey: sandbox.apiKey }),
	]);
	checkNoNodeFailed(
		await executeWorkflowToFile(cli, id, { settings: READS_PUBLISHED_FROM_WORKFLOW }),
	);
	const proxied = proxy.records();
	checkCasesRanInTurn(branches, proxied);
	for (const branch of branches) {
		const key = bookKey(provider.key, branch.size, branch.caseKey);
		book.set(key, [...(book.get(key) ?? []), smallSample(branch, proxied)]);
	}
}

/** A case whose node failed in n8n measured nothing. */
function checkNoNodeFailed(result: ExecutionResult): void {
	const { runData, error } = result.data.resultData;
	if (error) throw new Error(`The workflow failed in n8n: ${error.message}`);
	for (const [name, runs] of Object.entries(runData)) {
		const failed = (runs as Array<{ error?: { message?: string } }>).find((run) => run.error);
		if (failed) throw new Error(`"${name}" failed in n8n: ${failed.error?.message}`);
	}
}

function wireMs(book: SmallBook, provider: string, size: number, caseKey: string): number {
	const samples = book.get(bookKey(provider, size, caseKey));
	if (!samples?.length) throw new Error(`No samples for ${bookKey(provider, size, caseKey)}`);
	return median(samples.map((sample) => sample.wireMs));
}

interface SizeFigures {
	bestFixed: number;
	firstRatio: number;
	secondRatio: number;
}

function sizeFigures(book: SmallBook, provider: string, size: number): SizeFigures {
	const fixed = FIXED_SETTINGS.map((limit) => ({
		limit,
		ms: wireMs(book, provider, size, fixedKey(limit)),
	}));
	const best = fixed.reduce((a, b) => (b.ms < a.ms ? b : a));
	return {
		bestFixed: best.limit,
		firstRatio: best.ms / wireMs(book, provider, size, FIRST),
		secondRatio: best.ms / wireMs(book, provider, size, SECOND),
	};
}

const rate = (size: number, ms: number) => formatNumber(size / (ms / 1000), 1);

function providerTable(book: SmallBook, provider: (typeof SMALL_PROVIDERS)[number]) {
	const caseKeys = [FIRST, SECOND, ...FIXED_SETTINGS.map(fixedKey)];
	const samplesOf = (size: number, caseKey: string) =>
		book.get(bookKey(provider.key, size, caseKey)) ?? [];
	return {
		caption: `${provider.label} provider (latency ${provider.shape.latencyMs} ms + 0–${provider.shape.jitterMs} ms, no rate limit): sends/s on the wire, median`,
		header: [
			'Messages',
			'defaults, first execution',
			'defaults, second execution',
			...FIXED_SETTINGS.map((limit) => `${limit} in flight`),
			'first ÷ best fixed',
			'second ÷ best fixed',
			'requests before the first answer: first / second',
			'failed / duplicates',
		],
		rows: SMALL_SIZES.map((size) => {
			const figures = sizeFigures(book, provider.key, size);
			const all = caseKeys.flatMap((caseKey) => samplesOf(size, caseKey));
			const startOf = (caseKey: string) =>
				formatNumber(median(samplesOf(size, caseKey).map((sample) => sample.firstRoundTrip)));
			return [
				formatNumber(size),
				...caseKeys.map((caseKey) => rate(size, wireMs(book, provider.key, size, caseKey))),
				formatNumber(figures.firstRatio, 2),
				formatNumber(figures.secondRatio, 2),
				`${startOf(FIRST)} / ${startOf(SECOND)}`,
				`${Math.max(...all.map((sample) => sample.failed))} / ${Math.max(...all.map((sample) => sample.duplicates))}`,
			];
		}),
	};
}

function targets(book: SmallBook): TargetCheck[] {
	return selectedProviders().flatMap((provider) =>
		SMALL_SIZES.flatMap((size) => {
			const figures = sizeFigures(book, provider.key, size);
			const where = `${formatNumber(size)} messages at ${provider.label}`;
			const best = `best fixed (${figures.bestFixed} in flight)`;
			return [
				{
					target: `Small campaigns: ${where}, defaults' first execution in a process ≥ ${FIRST_TARGET} × the ${best}`,
					measured: `${formatNumber(figures.firstRatio, 2)} ×`,
					holds: figures.firstRatio >= FIRST_TARGET,
				},
				{
					target: `Small campaigns: ${where}, defaults' second execution ≥ ${SECOND_TARGET} × the ${best}`,
					measured: `${formatNumber(figures.secondRatio, 2)} ×`,
					holds: figures.secondRatio >= SECOND_TARGET,
				},
			];
		}),
	);
}

/** E.g. "100 messages 5, 500 messages 1, 1,000 messages 1". */
const samplesBySize = () =>
	SMALL_SIZES.map((size) => `${formatNumber(size)} messages ${samplesPerRepetition(size)}`).join(
		', ',
	);

/**
 * Campaigns of 100, 500 and 1,000 messages in a real n8n 2.40.7 (`n8n execute`), the Messaging node at its
 * defaults in a process's first execution and in its second (a sub-workflow right after), against 5, 10, 20
 * and 50 in flight.
 */
export async function measureSmallCampaigns(
	sandbox: BenchSandbox,
	repetitions: number,
): Promise<ScenarioReport> {
	const book: SmallBook = new Map();
	await inN8nRepetitions(
		sandbox,
		{ name: 'small campaigns', providers: selectedProviders(), repetitions },
		(cli, proxy, provider, repetition) =>
			runProvider(cli, sandbox, proxy, provider, repetition, book),
		async (cli, proxy) => {
			const api = { baseUrl: proxy.url, apiKey: sandbox.apiKey };
			const rounds = smallRounds();
			await importCredentials(
				cli,
				rounds.map(({ size, round }) => ({
					...sizeCredential(size, round),
					type: 'messagingApi',
					data: { apiKey: api.apiKey, baseUrl: api.baseUrl },
				})),
			);
			await importWorkflows(
				cli,
				rounds.map((entry) => secondExecutionWorkflow(entry, api)),
			);
			for (const { size, round } of rounds) await publishWorkflow(cli, subWorkflowId(size, round));
		},
	);
	return {
		title: '7. Small campaigns',
		setup: `A real n8n 2.40.7 (n8n execute), one workflow per provider and repetition: an untimed warm-up of 200 sends, then for each size (rotated) rounds of the fixed settings and the pair of automatic executions in rotated order, one after another; a short campaign runs its round several times in a row, the order rotated one further each round, and every round is a sample. Samples of each case per repetition: ${samplesBySize()}. Each size and round has its own credential, so every first automatic execution meets a provider the process has not learnt; the second is a sub-workflow (Execute Workflow) run right after it: a new execution in the same process. Times are on the wire (first request received to last answer), which leaves out the pass that checks every item before any is sent (the same for every case). Medians are over every sample of every repetition; ratios are of medians.`,
		measures: [],
		tables: selectedProviders().map((provider) => providerTable(book, provider)),
		targets: targets(book),
	};
}
