import './preferTypeScriptSources';

import http from 'node:http';

import { campaignRows } from './campaignRows';
import { profilePhases } from './scaleProfile';
import { sendThroughNode } from './smsCampaign';
import type { CampaignSender } from './smsCampaign';

/**
 * When the first request leaves, measured on n8n's HTTP helper's way out (node:http, under axios): the Messaging
 * node checks every item before it sends any, so this is its validation pass plus the workflow's start.
 */
function watchFirstRequest(onRequest?: () => void): () => number | undefined {
	let firstAt: number | undefined;
	const request = http.request;
	http.request = ((...args: Parameters<typeof http.request>) => {
		firstAt ??= performance.now();
		onRequest?.();
		return request(...args);
	}) as typeof http.request;
	return () => firstAt;
}

function collectGarbage(): void {
	const { gc } = globalThis as { gc?: () => void };
	if (!gc) throw new Error('Run the scale probe with --expose-gc');
	gc();
}

/**
 * One node run in a fresh process, reporting the process's peak resident memory. Run by the scale
 * scenario with BENCH_ITEMS rows against the sandbox at BENCH_SANDBOX_URL, through the node BENCH_SENDER
 * names (the Messaging node unless it says helper-floor).
 */
async function main(): Promise<void> {
	const items = Number(process.env.BENCH_ITEMS);
	const baseUrl = process.env.BENCH_SANDBOX_URL;
	const apiKey = process.env.BENCH_API_KEY;
	if (!Number.isInteger(items) || items < 1 || !baseUrl || !apiKey) {
		throw new Error(
			'Set BENCH_ITEMS (a whole number of at least 1), BENCH_SANDBOX_URL and BENCH_API_KEY',
		);
	}
	const sender = (process.env.BENCH_SENDER ?? 'messaging') as CampaignSender;
	if (sender !== 'messaging' && sender !== 'helper-floor')
		throw new Error('BENCH_SENDER must be messaging or helper-floor');
	const profileDir = process.env.BENCH_SCALE_PROFILE_DIR;
	const profile = profileDir ? profilePhases(profileDir, items, sender) : undefined;
	const firstRequestAt = watchFirstRequest(profile && (() => void profile.onRequest()));
	await profile?.start();
	const startedAt = performance.now();
	const outcome = await sendThroughNode(
		campaignRows(items, process.env.BENCH_RUN_TAG ?? 'scale'),
		{ baseUrl, apiKey, options: {} },
		sender,
	);
	await profile?.finish();
	// maxRSS is in kibibytes: the high-water mark of the whole process, start-up included.
	const peakRssBytes = process.resourceUsage().maxRSS * 1024;
	// What is still reachable once the run is over tells retained memory apart from garbage not yet collected.
	collectGarbage();
	const retainedHeapBytes = process.memoryUsage().heapUsed;
	const report = {
		items,
		delivered: outcome.delivered,
		failed: outcome.failed,
		wallMs: outcome.wallMs,
		firstSendMs: (firstRequestAt() ?? Number.NaN) - startedAt,
		peakRssBytes,
		retainedHeapBytes,
	};
	process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(
			`Scale probe failed: ${error instanceof Error ? error.message : String(error)}\n`,
		);
		process.exit(1);
	},
);
