import type { TimerRegistry } from '../timers';
import type { SandboxClock, WebhookConfig, WebhookDelivery, WebhookEvent } from '../types';
import { postJson } from './post-json';
import { deliveryHeaders } from './signing';

const DEFAULTS: Required<WebhookConfig> = { timeoutMs: 5000, maxAttempts: 6, baseDelayMs: 500 };
const MAX_RECORDED_DELIVERIES = 100_000;

/**
 * Delivers events with retries and exponential backoff. Events of one message go out one after
 * the other, so a receiver never sees "delivered" before "sent"; so do the inbound messages of one sender.
 */
export class WebhookDispatcher {
	private readonly config: Required<WebhookConfig>;
	private readonly chains = new Map<string, Promise<void>>();
	private readonly deliveries: WebhookDelivery[] = [];
	private readonly aborter = new AbortController();

	constructor(
		config: WebhookConfig,
		private readonly clock: SandboxClock,
		private readonly timers: TimerRegistry,
		private readonly signingSecret: string,
	) {
		this.config = { ...DEFAULTS, ...config };
		if (!(this.config.maxAttempts >= 1)) throw new Error('webhooks.maxAttempts must be at least 1');
	}

	enqueue(event: WebhookEvent, url: string): void {
		const order = event.type === 'message.inbound' ? `inbound:${event.from}` : event.message_id;
		const previous = this.chains.get(order) ?? Promise.resolve();
		const chain = previous.then(() => this.deliver(event, url));
		this.chains.set(order, chain);
		void chain.then(() => {
			if (this.chains.get(order) === chain) this.chains.delete(order);
		});
	}

	list(): WebhookDelivery[] {
		return structuredClone(this.deliveries);
	}

	close(): void {
		this.aborter.abort();
	}

	private async deliver(event: WebhookEvent, url: string): Promise<void> {
		const rawBody = JSON.stringify(event);
		for (let attempt = 1; attempt <= this.config.maxAttempts; attempt++) {
			if (this.aborter.signal.aborted) return;
			// Each attempt is signed afresh: a retry hours later must still pass a receiver's replay window.
			const timestampSeconds = Math.floor(this.clock.now() / 1000);
			const headers = deliveryHeaders(
				this.signingSecret,
				event.event_id,
				timestampSeconds,
				rawBody,
			);
			const at = this.clock.now();
			const result = await postJson(
				url,
				rawBody,
				headers,
				this.config.timeoutMs,
				this.aborter.signal,
			);
			if (this.aborter.signal.aborted) return;
			this.record({
				eventId: event.event_id,
				eventType: event.type,
				messageId: event.message_id,
				messageStatus: event.type === 'message.status' ? event.status : null,
				url,
				attempt,
				at,
				status: 'status' in result ? result.status : null,
				error: 'error' in result ? result.error : null,
			});
			if ('status' in result && result.status >= 200 && result.status < 300) return;
			if (attempt < this.config.maxAttempts)
				await this.timers.wait(this.config.baseDelayMs * 2 ** (attempt - 1));
		}
	}

	private record(delivery: WebhookDelivery): void {
		this.deliveries.push(delivery);
		if (this.deliveries.length > MAX_RECORDED_DELIVERIES) this.deliveries.shift();
	}
}
