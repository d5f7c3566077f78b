import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { messagingApiCredential } from '../../lib/credentials';
import { findFreePort } from '../../lib/ports';
import {
	executeWorkflow,
	importCredentials,
	importWorkflows,
	type N8nCliTarget,
} from '../../n8n/cli';
import { ensureN8nInstalled } from '../../n8n/install';
import { buildAndPack, installPackageIntoUserFolder } from '../../n8n/package';
import { CACHE_DIR } from '../../n8n/paths';
import type { BenchSandbox } from '../benchSandbox';
import { auditDeliveries, countRateLimited } from '../deliveryAudit';
import { campaignWorkflow, type Sender } from '../inN8n/workflows';
import { formatNumber, type ScenarioReport } from '../report';

const SENDS = 2000;
const LATENCY = { fixedMs: 20, jitterMs: 0 };
const POLITE_LIMIT = { perSecond: 100, burst: 100 };

interface Case {
	key: string;
	label: string;
	sender: Sender;
	polite: boolean;
}

const CASES: Case[] = [
	{
		key: 'msg',
		label: 'Messaging node, defaults',
		sender: { kind: 'messaging', options: {} },
		polite: false,
	},
	{
		key: 'msg20',
		label: 'Messaging node, Max Concurrent Requests 20',
		sender: { kind: 'messaging', options: { maxConcurrency: 20 } },
		polite: false,
	},
	{
		key: 'http',
		label: 'HTTP Request node, defaults',
		sender: { kind: 'httpRequest', options: {} },
		polite: false,
	},
	{
		key: 'http20',
		label: 'HTTP Request node, Batching 20 per batch',
		sender: {
			kind: 'httpRequest',
			options: { batching: { batch: { batchSize: 20, batchInterval: 0 } } },
		},
		polite: false,
	},
	{
		key: 'msgPolite',
		label: 'provider at 100/s: Messaging node, Max Messages per Second 100',
		sender: { kind: 'messaging', options: { maxPerSecond: 100 } },
		polite: true,
	},
	{
		key: 'httpPolite',
		label: 'provider at 100/s: HTTP Request node, Batching 100 per 1,000 ms',
		sender: {
			kind: 'httpRequest',
			options: { batching: { batch: { batchSize: 100, batchInterval: 1000 } } },
		},
		polite: true,
	},
];

interface CaseResult {
	sendsPerSecond: number;
	rateLimited: number;
	failed: number;
	duplicates: number;
}

async function prepareN8n(sandbox: BenchSandbox): Promise<N8nCliTarget> {
	await ensureN8nInstalled((line) => process.stderr.write(`  ${line}\n`));
	// Outside the repository: the repo's node_modules must not stand in for what the installed package brings.
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-nodes-messaging-bench-'));
	const packed = await buildAndPack(path.join(CACHE_DIR, 'bench-pack'), { reuseIfUnchanged: true });
	await installPackageIntoUserFolder(userFolder, packed);
	const cli = { userFolder, port: await findFreePort() };
	await importCredentials(cli, [messagingApiCredential(sandbox.url, sandbox.apiKey)]);
	return cli;
}

async function runCase(
	cli: N8nCliTarget,
	sandbox: BenchSandbox,
	entry: Case,
	runTag: string,
): Promise<CaseResult> {
	await sandbox.configure({ latency: LATENCY, rateLimit: entry.polite ? POLITE_LIMIT : null });
	await sandbox.clearRequests();
	const id = `bench${runTag.replace(/[^A-Za-z0-9]/g, '')}`.slice(0, 16);
	await importWorkflows(cli, [
		campaignWorkflow(id, runTag, SENDS, entry.sender, {
			baseUrl: sandbox.url,
			apiKey: sandbox.apiKey,
		}),
	]);
	await executeWorkflow(cli, id);
	const requests = await sandbox.requests();
	const audit = auditDeliveries(await sandbox.messages(), runTag, SENDS);
	const spanMs = Math.max(
		1,
		(requests[requests.length - 1]?.receivedAt ?? 0) - (requests[0]?.receivedAt ?? 0),
	);
	return {
		sendsPerSecond: (audit.accepted * 1000) / spanMs,
		rateLimited: countRateLimited(requests),
		failed: audit.lost,
		duplicates: audit.duplicates,
	};
}

/**
 * The same campaign in a real n8n 2.40.7 (`n8n execute`, the package installed from its tarball) through the
 * Messaging node and through what a user would build instead, n8n's HTTP Request node, at equal settings.
 */
export async function measureInN8n(sandbox: BenchSandbox): Promise<ScenarioReport> {
	const cli = await prepareN8n(sandbox);
	const results = new Map<string, CaseResult>();
	try {
		for (const entry of CASES)
			results.set(entry.key, await runCase(cli, sandbox, entry, `n8n-${entry.key}-${Date.now()}`));
	} catch (error) {
		throw new Error(
			`${(error as Error).message}\nn8n's log: ${path.join(cli.userFolder, 'n8n-cli.log')}`,
		);
	}
	fs.rmSync(cli.userFolder, { recursive: true, force: true });
	const of = (key: string) => results.get(key)!;
	const messagingFailed = CASES.filter((entry) => entry.sender.kind === 'messaging').reduce(
		(sum, entry) => sum + of(entry.key).failed,
		0,
	);
	const httpFailed = CASES.filter((entry) => entry.sender.kind === 'httpRequest').reduce(
		(sum, entry) => sum + of(entry.key).failed,
		0,
	);
	const politeRatio = of('msgPolite').sendsPerSecond / of('httpPolite').sendsPerSecond;
	return {
		title: '5. In n8n',
		setup:
			`${formatNumber(SENDS)} SMS per run in a real n8n 2.40.7 (n8n execute; Manual Trigger → Code → sender), sandbox latency ${LATENCY.fixedMs} ms, ` +
			`no rate limit except the last two rows (a token bucket of ${POLITE_LIMIT.perSecond}/s); the HTTP Request node posts the same form fields with the ` +
			'key in an Authorization header and On Error "Continue", so its failed rows are counted; sends/s = accepted messages over the span from the first to the last request.',
		measures: CASES.flatMap((entry) => {
			const result = of(entry.key);
			return [
				{ label: `${entry.label}: sends/s`, value: formatNumber(result.sendsPerSecond, 1) },
				{
					label: `${entry.label}: 429s / failed items / duplicates`,
					value: `${result.rateLimited} / ${result.failed} / ${result.duplicates}`,
				},
			];
		}),
		targets: [
			{
				target: 'In n8n: at 100/s, Messaging node faster than the HTTP Request node with Batching',
				measured: `${formatNumber(politeRatio, 2)} × (${formatNumber(of('msgPolite').sendsPerSecond, 1)} vs ${formatNumber(of('httpPolite').sendsPerSecond, 1)} sends/s)`,
				holds: politeRatio > 1,
			},
			{
				target: 'In n8n: Messaging node 0 failed items, 0 duplicates in every case',
				measured: `${messagingFailed} failed, ${CASES.filter((entry) => entry.sender.kind === 'messaging').reduce((sum, entry) => sum + of(entry.key).duplicates, 0)} duplicates (HTTP Request node: ${httpFailed} failed)`,
				holds:
					messagingFailed === 0 &&
					CASES.every(
						(entry) => entry.sender.kind !== 'messaging' || of(entry.key).duplicates === 0,
					),
			},
		],
	};
}
