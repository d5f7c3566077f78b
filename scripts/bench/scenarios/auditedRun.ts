import type { BenchSandbox } from '../benchSandbox';
import { auditDeliveries, countRateLimited } from '../deliveryAudit';
import { withinTime } from '../runGuard';
import { campaignRows } from '../campaignRows';
import { sendThroughNode } from '../smsCampaign';

export interface AuditedRun {
	wallMs: number;
	failed: number;
	lost: number;
	duplicates: number;
	rateLimited: number;
	/** From the start of the run to the first request the sandbox saw: n8n set-up plus the node's validation pass. */
	msBeforeFirstSend: number;
	/** From the first request to the last: the part the send-rate limiter paces. */
	sendSpanMs: number;
	firstError?: string;
}

const RUN_LIMIT_MS = 180_000;

/** One node run against a fresh token bucket, audited against what the sandbox accepted and answered. */
export async function auditedNodeRun(
	sandbox: BenchSandbox,
	runTag: string,
	sends: number,
	options: Record<string, unknown>,
	rateLimit: { perSecond: number; burst: number },
	latency: { fixedMs: number; jitterMs: number },
): Promise<AuditedRun> {
	// Configuring the limit again starts a full bucket, so no repetition inherits the previous one's debt.
	await sandbox.configure({ latency, rateLimit });
	await sandbox.clearHistory();
	const startedAt = Date.now();
	const outcome = await withinTime(
		sendThroughNode(campaignRows(sends, runTag), {
			baseUrl: sandbox.url,
			apiKey: sandbox.apiKey,
			options,
		}),
		RUN_LIMIT_MS,
		`${runTag}: node run`,
	);
	const audit = auditDeliveries(await sandbox.messages(), runTag, sends);
	const requests = await sandbox.requests();
	const firstAt = requests[0]?.receivedAt ?? startedAt;
	const lastAt = requests[requests.length - 1]?.receivedAt ?? startedAt;
	return {
		wallMs: outcome.wallMs,
		failed: outcome.failed,
		lost: audit.lost,
		duplicates: audit.duplicates,
		rateLimited: countRateLimited(requests),
		msBeforeFirstSend: firstAt - startedAt,
		sendSpanMs: lastAt - firstAt,
		...(outcome.firstError ? { firstError: outcome.firstError } : {}),
	};
}
