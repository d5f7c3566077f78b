import type { TimerRegistry } from '../timers';
import type { WebhookBatchConfig, WebhookEvent } from '../types';

interface OpenBatch {
	url: string;
	events: WebhookEvent[];
	settled: Array<() => void>;
}

export type BatchSender = (events: WebhookEvent[], url: string) => Promise<void>;

/**
 * Gathers events bound for one URL into a batch, SendGrid style: it leaves when it holds maxEvents, or lingerMs
 * after its first event. Each add() resolves once the batch it joined is delivered or given up.
 */
export class EventBatcher {
	private readonly open = new Map<string, OpenBatch>();

	constructor(
		private readonly timers: TimerRegistry,
		private readonly send: BatchSender,
	) {}

	add(event: WebhookEvent, url: string, config: WebhookBatchConfig): Promise<void> {
		let batch = this.open.get(url);
		if (batch === undefined) {
			const opened: OpenBatch = { url, events: [], settled: [] };
			this.open.set(url, opened);
			this.timers.schedule(config.lingerMs, () => this.flush(opened));
			batch = opened;
		}
		batch.events.push(event);
		const joined = batch;
		const settled = new Promise<void>((resolve) => joined.settled.push(resolve));
		if (batch.events.length >= config.maxEvents) this.flush(batch);
		return settled;
	}

	private flush(batch: OpenBatch): void {
		// The linger timer of a batch that already left full finds another batch (or none) open.
		if (this.open.get(batch.url) !== batch) return;
		this.open.delete(batch.url);
		void this.send(batch.events, batch.url).then(() => {
			for (const resolve of batch.settled) resolve();
		});
	}
}

export function checkedBatch(batch: WebhookBatchConfig | null): WebhookBatchConfig | null {
	if (batch === null) return null;
	if (
		typeof batch !== 'object' ||
		!Number.isInteger(batch.maxEvents) ||
		batch.maxEvents < 1 ||
		typeof batch.lingerMs !== 'number' ||
		!(batch.lingerMs >= 0)
	)
		throw new Error(
			'webhooks.batch must be { maxEvents: a whole number, 1 or more; lingerMs: 0 or more } or null',
		);
	return { maxEvents: batch.maxEvents, lingerMs: batch.lingerMs };
}
