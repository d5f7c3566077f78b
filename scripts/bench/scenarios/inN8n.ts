import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { messagingApiCredential } from '../../lib/credentials';
import { findFreePort } from '../../lib/ports';
import { importCredentials, importWorkflows, type N8nCliTarget } from '../../n8n/cli';
import { ensureN8nInstalled } from '../../n8n/install';
import {
	buildAndPack,
	installFixturePackage,
	installPackageIntoUserFolder,
} from '../../n8n/package';
import { CACHE_DIR } from '../../n8n/paths';
import type { BenchSandbox } from '../benchSandbox';
import { startLatencyProxy, type LatencyProxy } from '../latencyProxy';
import type { ScenarioReport } from '../report';
import { rotated } from '../stats';
import { PROVIDERS, type Provider } from '../inN8n/cases';
import { inN8nReport, type SampleBook } from '../inN8n/inN8nReport';
import { executeWorkflowToFile } from '../inN8n/executeToFile';
import { checkBranchesRanInTurn, sampleOf } from '../inN8n/samples';
import { campaignWorkflow, type Branch } from '../inN8n/workflows';

const BARE_HELPER_PACKAGE_DIR = path.resolve(__dirname, '..', 'fixtures', 'bare-helper-package');

export async function prepareN8n(
	sandbox: BenchSandbox,
	proxy: LatencyProxy,
): Promise<N8nCliTarget> {
	await ensureN8nInstalled((line) => process.stderr.write(`  ${line}\n`));
	// Outside the repository: the repo's node_modules must not stand in for what the installed package brings.
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-nodes-messaging-bench-'));
	const packed = await buildAndPack(path.join(CACHE_DIR, 'bench-pack'), { reuseIfUnchanged: true });
	await installPackageIntoUserFolder(userFolder, packed);
	await installFixturePackage(
		userFolder,
		BARE_HELPER_PACKAGE_DIR,
		path.join(CACHE_DIR, 'bench-fixture-pack'),
	);
	const cli = { userFolder, port: await findFreePort() };
	// Every sender goes through the latency proxy, which stands for the provider's network and load.
	await importCredentials(cli, [messagingApiCredential(proxy.url, sandbox.apiKey)]);
	return cli;
}

/**
 * The first branch of an `n8n execute` meets a cold process (its expression engine, the JIT) and the branch after
 * one that answered thousands of requests at once meets the garbage they left: both cost the validation pass about
 * a second in 5,000 items. So an untimed warm-up branch runs first, the senders that fire every row at once run
 * last, and the rest rotate. A warm-up of 200 sends at 20 in flight was too short for the sending path: at 20 ms the
 * first timed case still ran up to twice as slow (defaults 7.8 s first, 3.9 s last in one workflow), and so did
 * 1,000 at 50 in flight at the fast provider (`warmUpSends` in cases.ts).
 */
const WARM_UP = {
	key: 'warmUp',
	sender: { kind: 'messaging', options: { maxConcurrency: 50 } },
} as const;

function casesInTurn(provider: Provider, repetition: number): Provider['cases'] {
	const last = provider.cases.filter((entry) => entry.runsLast);
	return [
		...rotated(
			provider.cases.filter((entry) => !entry.runsLast),
			repetition,
		),
		...last,
	];
}

/** One `n8n execute` per provider and repetition: every case on its own branch, in rotated order. */
async function runProvider(
	cli: N8nCliTarget,
	sandbox: BenchSandbox,
	proxy: LatencyProxy,
	provider: Provider,
	repetition: number,
	book: SampleBook,
): Promise<void> {
	await sandbox.configure({ latency: null, rateLimit: provider.rateLimit });
	await sandbox.clearHistory();
	proxy.shape(provider.shape);
	proxy.clear();
	const stamp = Date.now().toString(36);
	const measured: Branch[] = casesInTurn(provider, repetition).map((entry) => ({
		key: entry.key,
		runTag: `${provider.key}-${entry.key}-${repetition}-${stamp}`,
		count: provider.sends,
		sender: entry.sender,
	}));
	const warmUp: Branch = {
		key: WARM_UP.key,
		runTag: `${provider.key}-${WARM_UP.key}-${repetition}-${stamp}`,
		count: provider.warmUpSends,
		sender: WARM_UP.sender,
	};
	const branches = [warmUp, ...measured];
	const id = `${provider.key.slice(0, 4)}${repetition}${stamp}`;
	await importWorkflows(cli, [
		campaignWorkflow(
			id,
			branches,
			{ baseUrl: proxy.url, apiKey: sandbox.apiKey },
			{ pauseSeconds: provider.pauseSeconds },
		),
	]);
	const result = await executeWorkflowToFile(cli, id);
	checkBranchesRanInTurn(branches, result);
	if (process.env.BENCH_IN_N8N_DUMP)
		fs.writeFileSync(
			path.join(process.env.BENCH_IN_N8N_DUMP, `${id}.json`),
			JSON.stringify({ branches, requests: proxy.records() }),
		);
	for (const branch of measured) {
		const key = `${provider.key}/${branch.key}`;
		book.set(key, [...(book.get(key) ?? []), sampleOf(branch, result, proxy.records())]);
	}
}

/** A real n8n behind a latency proxy for one scenario: set up, used, then removed; a broken run names n8n's log. */
export async function withBenchN8n<T>(
	sandbox: BenchSandbox,
	use: (cli: N8nCliTarget, proxy: LatencyProxy) => Promise<T>,
): Promise<T> {
	const proxy = await startLatencyProxy(sandbox.url);
	let cli: N8nCliTarget | undefined;
	try {
		cli = await prepareN8n(sandbox, proxy);
		const result = await use(cli, proxy);
		fs.rmSync(cli.userFolder, { recursive: true, force: true });
		return result;
	} catch (error) {
		const log = cli ? `\nn8n's log: ${path.join(cli.userFolder, 'n8n-cli.log')}` : '';
		throw new Error(`${(error as Error).message}${log}`);
	} finally {
		await proxy.stop();
	}
}

/** `BENCH_<name>=a,b` runs some of `all` (by key) while investigating; unset, all of them. */
export function selectedByEnv<T extends { key: string }>(all: T[], variable: string): T[] {
	const requested = (process.env[variable] ?? '').split(',').filter(Boolean);
	return requested.length > 0 ? all.filter((entry) => requested.includes(entry.key)) : all;
}

/**
 * A scenario's repetitions in a real n8n: each runs every provider once, in an order rotated by the repetition.
 * `prepare` sets n8n up further before the first run.
 */
export async function inN8nRepetitions<P extends { label: string }>(
	sandbox: BenchSandbox,
	{ name, providers, repetitions }: { name: string; providers: P[]; repetitions: number },
	run: (cli: N8nCliTarget, proxy: LatencyProxy, provider: P, repetition: number) => Promise<void>,
	prepare: (cli: N8nCliTarget, proxy: LatencyProxy) => Promise<void> = async () => {},
): Promise<void> {
	await withBenchN8n(sandbox, async (cli, proxy) => {
		await prepare(cli, proxy);
		for (let repetition = 0; repetition < repetitions; repetition++) {
			for (const provider of rotated(providers, repetition)) {
				const startedAt = Date.now();
				await run(cli, proxy, provider, repetition);
				process.stderr.write(
					`    ${name}: ${provider.label}, repetition ${repetition + 1}: ${((Date.now() - startedAt) / 1000).toFixed(0)} s\n`,
				);
			}
		}
	});
}

/**
 * The same campaign in a real n8n 2.40.7 (`n8n execute`, the package installed from its tarball) through the
 * Messaging node at its defaults and at fixed settings, and through the yardsticks at equal concurrency, against
 * four providers: fast, slow, rate-limited, and one that queues under load.
 */
export async function measureInN8n(
	sandbox: BenchSandbox,
	repetitions: number,
): Promise<ScenarioReport> {
	const book: SampleBook = new Map();
	// BENCH_IN_N8N_PROVIDERS=fast,knee runs some providers while investigating; the report covers those.
	await inN8nRepetitions(
		sandbox,
		{ name: 'in n8n', providers: selectedByEnv(PROVIDERS, 'BENCH_IN_N8N_PROVIDERS'), repetitions },
		(cli, proxy, provider, repetition) =>
			runProvider(cli, sandbox, proxy, provider, repetition, book),
	);
	return inN8nReport(book, repetitions);
}
