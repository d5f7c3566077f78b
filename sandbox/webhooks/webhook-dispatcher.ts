import { performance } from 'node:perf_hooks';

import { BoundedLog } from '../bounded-log';
import type { TimerRegistry } from '../timers';
import type {
	SandboxClock,
	WebhookBatchConfig,
	WebhookConfig,
	WebhookDelivery,
	WebhookEvent,
	WebhookSummary,
} from '../types';
import { ConnectionPool } from './connection-pool';
import { DeliverySummary } from './delivery-summary';
import { checkedBatch, EventBatcher } from './event-batcher';
import { postJson, type PostResult } from './post-json';
import { deliveryHeaders } from './signing';

type Settings = Required<Omit<WebhookConfig, 'batch'>> & { batch: WebhookBatchConfig | null };

const DEFAULTS: Settings = {
	timeoutMs: 5000,
	maxAttempts: 6,
	baseDelayMs: 500,
	maxConcurrent: 100,
	batch: null,
};
interface AttemptOutcome {
	attempt: number;
	at: number;
	result: PostResult;
	/** null for one event per POST. */
	batchSize: number | null;
}

const MAX_RECORDED_DELIVERIES = 100_000;
/** The statuses whose Retry-After a receiver uses to slow the sender down. */
const BACKPRESSURE_STATUSES = new Set([429, 503]);

/**
 * Delivers events with retries and exponential backoff, at most maxConcurrent requests in flight. Events of one
 * message go out one after the other, so a receiver never sees "delivered" before "sent"; so do the inbound
 * messages of one sender. A 429 or 503 with Retry-After holds every request to that URL for those seconds.
 */
export class WebhookDispatcher {
	private settings: Settings;
	private readonly pool: ConnectionPool;
	private readonly batcher: EventBatcher;
	private readonly summary = new DeliverySummary();
	private readonly chains = new Map<string, Promise<void>>();
	private readonly pausedUntil = new Map<string, number>();
	private readonly deliveries = new BoundedLog<WebhookDelivery>(MAX_RECORDED_DELIVERIES);
	private readonly aborter = new AbortController();

	constructor(
		config: WebhookConfig,
		private readonly clock: SandboxClock,
		private readonly timers: TimerRegistry,
		private readonly signingSecret: string,
	) {
		this.settings = checkedSettings({ ...DEFAULTS, ...config });
		this.pool = new ConnectionPool(this.settings.maxConcurrent);
		this.batcher = new EventBatcher(timers, (events, url) => this.send(events, url, true));
	}

	/** Merges a patch into the settings in force; events already queued follow the new ones. */
	configure(patch: WebhookConfig): void {
		const next = checkedSettings({ ...this.settings, ...patch });
		this.pool.resize(next.maxConcurrent);
		this.settings = next;
	}

	enqueue(event: WebhookEvent, url: string): void {
		this.summary.enqueued();
		const order = event.type === 'message.inbound' ? `inbound:${event.from}` : event.message_id;
		const previous = this.chains.get(order) ?? Promise.resolve();
		const chain = previous.then(() => this.deliver(event, url));
		this.chains.set(order, chain);
		void chain.then(() => {
			if (this.chains.get(order) === chain) this.chains.delete(order);
		});
	}

	list(): WebhookDelivery[] {
		return this.deliveries.list();
	}

	summarize(): WebhookSummary {
		return this.summary.snapshot(this.pool);
	}

	close(): void {
		this.aborter.abort();
	}

	private deliver(event: WebhookEvent, url: string): Promise<void> {
		const batch = this.settings.batch;
		return batch === null ? this.send([event], url, false) : this.batcher.add(event, url, batch);
	}

	/** One POST body (an event, or an array of them) through its attempts. */
	private async send(events: WebhookEvent[], url: string, asArray: boolean): Promise<void> {
		const rawBody = JSON.stringify(asArray ? events : events[0]);
		for (let attempt = 1; attempt <= this.settings.maxAttempts; attempt++) {
			const outcome = await this.post(url, rawBody, asArray ? null : events[0].event_id);
			if (outcome === null) return;
			const { at, result } = outcome;
			const status = 'status' in result ? result.status : null;
			this.summary.posted(status);
			const batchSize = asArray ? events.length : null;
			for (const event of events) this.record(event, url, { attempt, at, result, batchSize });
			if (status !== null && status >= 200 && status < 300) {
				this.summary.deliveredAll(events, attempt);
				return;
			}
			if (attempt < this.settings.maxAttempts)
				await this.timers.wait(this.retryDelayMs(attempt, result));
		}
		this.summary.gaveUpOn(events.length);
	}

	/** One attempt in a pool slot, once the URL is not held; null when the sandbox closed meanwhile. */
	private async post(
		url: string,
		rawBody: string,
		eventId: string | null,
	): Promise<{ at: number; result: PostResult } | null> {
		const signal = this.aborter.signal;
		// A slot freed by the request that was just told to wait must not let the next one through.
		for (;;) {
			await this.untilResumed(url);
			if (signal.aborted) return null;
			await this.pool.acquire();
			if (!this.isHeld(url)) break;
			this.pool.release();
		}
		try {
			const at = this.clock.now();
			// Each attempt is signed afresh: a retry hours later must still pass a receiver's replay window.
			const headers = deliveryHeaders(this.signingSecret, eventId, Math.floor(at / 1000), rawBody);
			const result = await postJson(url, rawBody, headers, this.settings.timeoutMs, signal);
			this.holdOnBackpressure(url, result);
			return signal.aborted ? null : { at, result };
		} finally {
			this.pool.release();
		}
	}

	/** A 429 or 503 with Retry-After holds every request to that URL for those seconds. */
	private holdOnBackpressure(url: string, result: PostResult): void {
		const seconds = backpressureSeconds(result);
		if (seconds === undefined) return;
		const until = performance.now() + seconds * 1000;
		this.pausedUntil.set(url, Math.max(until, this.pausedUntil.get(url) ?? 0));
	}

	private isHeld(url: string): boolean {
		const resumeAt = this.pausedUntil.get(url);
		return resumeAt !== undefined && resumeAt > performance.now();
	}

	/** The receiver's Retry-After on 429 and 503, else exponential backoff. */
	private retryDelayMs(attempt: number, result: PostResult): number {
		const seconds = backpressureSeconds(result);
		return seconds === undefined ? this.settings.baseDelayMs * 2 ** (attempt - 1) : seconds * 1000;
	}

	private async untilResumed(url: string): Promise<void> {
		for (;;) {
			const resumeAt = this.pausedUntil.get(url);
			if (resumeAt === undefined) return;
			const left = resumeAt - performance.now();
			if (left <= 0) {
				this.pausedUntil.delete(url);
				return;
			}
			await this.timers.wait(left);
		}
	}

	private record(
		event: WebhookEvent,
		url: string,
		{ attempt, at, result, batchSize }: AttemptOutcome,
	): void {
		this.deliveries.add({
			eventId: event.event_id,
			eventType: event.type,
			messageId: event.message_id,
			messageStatus: event.type === 'message.status' ? event.status : null,
			url,
			attempt,
			at,
			status: 'status' in result ? result.status : null,
			error: 'error' in result ? result.error : null,
			...(batchSize === null ? {} : { batchSize }),
		});
	}
}

function checkedSettings(settings: Settings): Settings {
	const unknown = Object.keys(settings).filter((key) => !(key in DEFAULTS));
	if (unknown.length > 0)
		throw new Error(
			`Unknown webhooks setting ${unknown.join(', ')}; use ${Object.keys(DEFAULTS).join(', ')}`,
		);
	if (!(settings.maxAttempts >= 1)) throw new Error('webhooks.maxAttempts must be at least 1');
	if (!Number.isInteger(settings.maxConcurrent) || settings.maxConcurrent < 1)
		throw new Error('webhooks.maxConcurrent must be a whole number, 1 or more');
	if (!(settings.timeoutMs > 0) || !(settings.baseDelayMs >= 0))
		throw new Error('webhooks.timeoutMs must be above 0 and webhooks.baseDelayMs 0 or more');
	return { ...settings, batch: checkedBatch(settings.batch ?? null) };
}

function backpressureSeconds(result: PostResult): number | undefined {
	return 'status' in result && BACKPRESSURE_STATUSES.has(result.status)
		? result.retryAfterSeconds
		: undefined;
}
