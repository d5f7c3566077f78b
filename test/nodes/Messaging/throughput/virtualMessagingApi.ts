import type { IExecuteFunctions, IHttpRequestOptions, INodeExecutionData } from 'n8n-workflow';

import type { BatchSettings } from '../../../../nodes/Messaging/actions/common/sendSettings';
import { sendAll, type IndexedSend } from '../../../../nodes/Messaging/actions/sendPrepared';
import { forEachWithConcurrency } from '../../../../nodes/Messaging/throughput/pool';
import type { MessagingEndpoint } from '../../../../nodes/Messaging/transport/endpoint';
import { messagingNode } from '../../../helpers/nodeFixtures';
import { seededRandom } from './simulatedProvider';
import type { VirtualClock } from './virtualClock';

export interface VirtualApiSettings {
	latencyMs: number;
	/** Uniform extra latency of 0 to this many ms per request. */
	jitterMs?: number;
	/** A token bucket: `perSecond` refill, `burst` capacity. */
	bucket?: { perSecond: number; burst: number };
	/** Tell the bucket in RateLimit-* headers, as the sandbox does; an unkind provider keeps it to itself. */
	tellsBudget?: boolean;
	/** Past this many requests in flight the provider queues: latency × (in flight ÷ knee). */
	kneeInFlight?: number;
	/** From this virtual time on, every answer takes this much longer (a provider slowing down for everyone). */
	slowerFrom?: { atMs: number; extraMs: number };
	/** Every `everyMs`, every request in flight is held `forMs` longer: a busy n8n host's event-loop stalls. */
	stalls?: { everyMs: number; forMs: number };
	/**
	 * CPU the sending host spends on each request, half to send it and half to read its answer, one request at a
	 * time: n8n's HTTP helper on a busy host, where the event loop queues requests before the provider ever does.
	 */
	hostCpuMs?: number;
}

interface FullResponse {
	statusCode: number;
	headers: Record<string, string>;
	body: unknown;
}

/**
 * The Messaging API's send endpoint on virtual time, answering n8n's HTTP helper as the sandbox would: 200 with
 * an acknowledgement, or 429 with Retry-After (whole seconds) when its bucket is empty.
 */
export class VirtualMessagingApi {
	readonly latencies: number[] = [];

	readonly accepted: string[] = [];

	throttled = 0;

	requests = 0;

	private inFlight = 0;

	peakInFlight = 0;

	/** When each request reached the provider, and how many were in flight with it. */
	readonly starts: Array<{ at: number; inFlight: number }> = [];

	private tokens: number;

	private refilledAt = 0;

	private readonly random = seededRandom(7);

	private hostFreeAt = 0;

	constructor(
		private readonly settings: VirtualApiSettings,
		private readonly clock: VirtualClock,
	) {
		this.tokens = settings.bucket?.burst ?? 0;
	}

	async answer(options: IHttpRequestOptions): Promise<FullResponse> {
		await this.occupyHost();
		const response = await this.answerOnTheWire(options);
		await this.occupyHost();
		return response;
	}

	/** Waits for the host's event loop, then holds it for half a request's CPU. */
	private async occupyHost(): Promise<void> {
		const { hostCpuMs } = this.settings;
		if (!hostCpuMs) return;
		const now = this.clock.now();
		this.hostFreeAt = Math.max(now, this.hostFreeAt) + hostCpuMs / 2;
		await this.clock.sleep(this.hostFreeAt - now);
	}

	private async answerOnTheWire(options: IHttpRequestOptions): Promise<FullResponse> {
		this.requests++;
		this.inFlight++;
		this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
		const startedAt = this.clock.now();
		this.starts.push({ at: startedAt, inFlight: this.inFlight });
		const latency = this.latencyFor(this.inFlight, startedAt);
		await this.clock.sleep(latency / 2);
		const admission = this.admit();
		await this.clock.sleep(latency / 2);
		const { stalls } = this.settings;
		if (stalls) {
			const stallsSpanned =
				Math.floor(this.clock.now() / stalls.everyMs) - Math.floor(startedAt / stalls.everyMs);
			await this.clock.sleep(stallsSpanned * stalls.forMs);
		}
		this.inFlight--;
		this.latencies.push(this.clock.now() - startedAt);
		if (!admission.admitted) {
			this.throttled++;
			return { statusCode: 429, headers: admission.headers, body: { error: 'rate limited' } };
		}
		const to = new URLSearchParams(String(options.body)).get('to') ?? '';
		this.accepted.push(to);
		return {
			statusCode: 200,
			headers: admission.headers,
			body: { message_id: `m-${this.accepted.length}`, status: 'queued', channel: 'sms', to },
		};
	}

	/** The latency a request saw at the 99th percentile (nearest rank). */
	p99(): number {
		const sorted = [...this.latencies].sort((a, b) => a - b);
		return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
	}

	private latencyFor(inFlight: number, now: number): number {
		const { latencyMs, jitterMs = 0, kneeInFlight, slowerFrom } = this.settings;
		const base = latencyMs + this.random() * jitterMs;
		const queueing = kneeInFlight ? Math.max(1, inFlight / kneeInFlight) : 1;
		const slower = slowerFrom && now >= slowerFrom.atMs ? slowerFrom.extraMs : 0;
		return base * queueing + slower;
	}

	private admit(): { admitted: boolean; headers: Record<string, string> } {
		const { bucket, tellsBudget = true } = this.settings;
		if (!bucket) return { admitted: true, headers: {} };
		const now = this.clock.now();
		this.tokens = Math.min(
			bucket.burst,
			this.tokens + ((now - this.refilledAt) * bucket.perSecond) / 1000,
		);
		this.refilledAt = now;
		const admitted = this.tokens >= 1 - 1e-9;
		if (admitted) this.tokens -= 1;
		const headers: Record<string, string> = {};
		if (tellsBudget) {
			headers['ratelimit-remaining'] = String(Math.floor(this.tokens + 1e-9));
			headers['ratelimit-policy'] = `${bucket.burst};w=${bucket.burst / bucket.perSecond}`;
		}
		if (!admitted)
			headers['retry-after'] = String(Math.max(1, Math.ceil((1 - this.tokens) / bucket.perSecond)));
		return { admitted, headers };
	}
}

export interface VirtualRun {
	durationMs: number;
	output: Array<INodeExecutionData | undefined>;
}

// Each run gets a provider of its own unless told otherwise: the pace one run learns is kept for the next run
// to the same credential and base URL in the process (paceMemory.ts).
let endpointsMade = 0;

/**
 * The node's own send loop (`sendAll`) against the virtual API, with n8n's helpers reduced to what it calls. Runs
 * given the same `endpoint` are executions of one process sending to one provider.
 */
export async function sendThroughVirtualApi(
	api: VirtualMessagingApi,
	clock: VirtualClock,
	items: number,
	batch: Partial<BatchSettings> = {},
	endpoint: MessagingEndpoint = { baseUrl: `https://api-${++endpointsMade}.example.test` },
): Promise<VirtualRun> {
	const node = messagingNode({}, { id: 'virtual-send', onError: 'continueRegularOutput' });
	const context = {
		getNode: () => node,
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) =>
				await api.answer(options),
			returnJsonArray: (json: object) => [{ json }],
			constructExecutionMetaData: (
				data: INodeExecutionData[],
				{ itemData }: { itemData: { item: number } },
			) => data.map((item) => ({ ...item, pairedItem: itemData })),
		},
	} as unknown as IExecuteFunctions;
	const sends: Array<IndexedSend | undefined> = Array.from({ length: items }, (_, itemIndex) => ({
		itemIndex,
		request: { path: '/v1/sms/send', fields: { to: `+9198${10000000 + itemIndex}` } },
		settings: { bodyEncoding: 'form', timeoutMs: 30_000 },
	}));
	const startedAt = clock.now();
	const sent = await clock.run(
		sendAll(
			context,
			sends,
			{
				endpoint,
				batch: {
					maxConcurrency: 0,
					maxPerSecond: 0,
					maxTriesPerMessage: 3,
					sendOnceHours: 0,
					...batch,
				},
				continueOnFail: true,
			},
			clock,
		),
	);
	const output = Array.from({ length: items }, (_, itemIndex) => sent.get(itemIndex));
	return { durationMs: clock.now() - startedAt, output };
}

/** A truly fixed number in flight, no limiter or retries: what "the best fixed setting" can do at best. */
export async function sendWithFixedConcurrency(
	api: VirtualMessagingApi,
	clock: VirtualClock,
	items: number,
	concurrency: number,
): Promise<number> {
	const startedAt = clock.now();
	await clock.run(
		forEachWithConcurrency(items, concurrency, async (index) => {
			await api.answer({ url: '/v1/sms/send', body: `to=%2B9198${10000000 + index}` });
		}),
	);
	return clock.now() - startedAt;
}
