import type { InboundEvent, RateLimitConfig } from '../../sandbox/types';

export type { InboundEvent };

/** A client for the sandbox's admin endpoints (`/__admin/*`): what it received, and simulated inbound traffic. */
export interface RecordedRequest {
	method: string;
	path: string;
	headers: Record<string, string>;
	/** The named fields as the sandbox parsed them, object fields still JSON-encoded text. */
	fields?: Record<string, unknown>;
	body?: unknown;
	status?: number;
	response?: unknown;
	[key: string]: unknown;
}

export interface CampaignStarted {
	count: number;
	failed: number;
	expectedEvents: number;
}

export class SandboxAdmin {
	constructor(readonly baseUrl: string) {}

	async requests(): Promise<RecordedRequest[]> {
		return this.unwrapList<RecordedRequest>(
			await this.call('GET', '/__admin/requests'),
			'requests',
		);
	}

	async messages(): Promise<Array<Record<string, unknown>>> {
		return this.unwrapList<Record<string, unknown>>(
			await this.call('GET', '/__admin/messages'),
			'messages',
		);
	}

	async webhookDeliveries(): Promise<Array<Record<string, unknown>>> {
		return this.unwrapList<Record<string, unknown>>(
			await this.call('GET', '/__admin/webhook-deliveries'),
			'deliveries',
		);
	}

	/**
	 * A WhatsApp user writes (`{ from, text? , replyTo? }`) or presses a quick-reply button
	 * (`{ button: { messageId, position } }`): the window opens and the signed event goes to the account webhook.
	 */
	async simulateInbound(message: Record<string, unknown>): Promise<InboundEvent> {
		return ((await this.call('POST', '/__admin/inbound', message)) as { event: InboundEvent })
			.event;
	}

	async setAccountWebhook(url: string | null): Promise<void> {
		await this.call('PUT', '/__admin/webhook', { url });
	}

	/** Same shapes as startSandbox's options, e.g. `{ lifecycle: { stepDelayMs: 400 } }`. */
	/** Forgets what was received so far, so a check counts only its own requests. */
	async clearRequests(): Promise<void> {
		await this.call('DELETE', '/__admin/requests');
	}

	async configure(config: Record<string, unknown>): Promise<void> {
		await this.call('PUT', '/__admin/config', config);
	}

	/**
	 * The provider's limits per API key, e.g. `{ window: { limit: 100, seconds: 60 } }`, `{ dailyCap: 250 }` or
	 * `{ perSecond: 10 }`; null lifts them. Every answer then tells the tightest budget in RateLimit-* headers.
	 */
	async setRateLimit(rateLimit: RateLimitConfig | null): Promise<void> {
		await this.configure({ rateLimit });
	}

	/** A campaign's realistic status events without sending it (sandbox/README.md, "Campaign workload"). */
	async startCampaign(campaign: Record<string, unknown>): Promise<CampaignStarted> {
		return (await this.call('POST', '/__admin/campaign', campaign)) as CampaignStarted;
	}

	/** Delivery outcomes since the sandbox started: `delivered` counts events answered 2xx. */
	async webhookSummary(): Promise<{ delivered: number; gaveUp: number; posts: number }> {
		return (await this.call('GET', '/__admin/webhook-summary')) as {
			delivered: number;
			gaveUp: number;
			posts: number;
		};
	}

	private unwrapList<T>(body: unknown, key: string): T[] {
		if (Array.isArray(body)) return body as T[];
		const list = (body as Record<string, unknown> | null)?.[key];
		if (Array.isArray(list)) return list as T[];
		throw new Error(
			`The sandbox answered an unexpected shape for ${key}: ${JSON.stringify(body).slice(0, 200)}`,
		);
	}

	private async call(method: string, path: string, body?: unknown): Promise<unknown> {
		const response = await fetch(`${this.baseUrl}${path}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok)
			throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
		return text ? JSON.parse(text) : undefined;
	}
}
