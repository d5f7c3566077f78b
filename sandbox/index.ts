import { createManualClock, createSystemClock } from './clock';
import { closedPortUrl } from './closed-port';
import { checkedLifecycle } from './messages/lifecycle';
import { checkedIdempotencyKeys, checkedLatency, createSandboxContext } from './sandbox-context';
import { DEFAULT_SEED, SANDBOX_API_KEY, SANDBOX_SIGNING_SECRET } from './seed';
import { createSandboxServer, listen } from './server';
import { checkedRateLimit } from './throughput/rate-limiter';
import { inboundEvent } from './inbound/inbound-event';
import { startCampaign } from './campaign/campaign';
import type {
	CampaignOptions,
	FaultRule,
	InboundSimulation,
	Sandbox,
	SandboxConfigPatch,
	SandboxOptions,
} from './types';
import { signPayload } from './webhooks/signing';

export * from './types';
export {
	closedPortUrl,
	createManualClock,
	createSystemClock,
	DEFAULT_SEED,
	SANDBOX_API_KEY,
	SANDBOX_SIGNING_SECRET,
	signPayload,
};

const CONFIG_KEYS = ['latency', 'rateLimit', 'lifecycle', 'webhooks', 'idempotencyKeys'];

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const context = createSandboxContext(options);
	const host = options.host ?? '127.0.0.1';

	const operations = {
		clock: context.clock,
		requests: () => context.requestLog.list(),
		clearRequests: () => context.requestLog.clear(),
		messages: () => context.messages.list(),
		clearMessages() {
			context.messages.clear();
			context.idempotency.clear();
		},
		simulateInbound(input: string | InboundSimulation) {
			const { messages, templates } = context;
			const sources = {
				businessNumber: context.seed.account.businessNumber,
				messages,
				templates,
				nowMs: context.clock.now(),
			};
			const event = inboundEvent(sources, input);
			context.sessions.recordInbound(event.from);
			if (context.account.webhookUrl !== null)
				context.webhooks.enqueue(event, context.account.webhookUrl);
			return event;
		},
		setWebhookUrl(url: string | null) {
			if (url !== null) assertHttpUrl(url);
			context.account.webhookUrl = url;
		},
		configure(patch: Partial<SandboxConfigPatch>) {
			const unknown = Object.keys(patch).filter((key) => !CONFIG_KEYS.includes(key));
			if (unknown.length > 0)
				throw new Error(`Unknown config ${unknown.join(', ')}; use ${CONFIG_KEYS.join(', ')}`);
			// Check the whole patch first: a bad part must not leave the good parts applied.
			const latency = patch.latency === undefined ? undefined : checkedLatency(patch.latency);
			const rateLimit =
				patch.rateLimit === undefined ? undefined : checkedRateLimit(patch.rateLimit);
			const lifecycle =
				patch.lifecycle === undefined ? undefined : checkedLifecycle(patch.lifecycle);
			const idempotencyKeys =
				patch.idempotencyKeys === undefined
					? undefined
					: checkedIdempotencyKeys(patch.idempotencyKeys);
			// Checked and applied in one step, before the rest, so a bad webhooks part applies nothing.
			if (patch.webhooks !== undefined) context.webhooks.configure(patch.webhooks);
			if (latency !== undefined) context.latency = latency;
			if (idempotencyKeys !== undefined) context.idempotencyKeys = idempotencyKeys;
			if (rateLimit !== undefined) context.rateLimiter.configure(rateLimit);
			if (lifecycle !== undefined) context.lifecycle.configure(lifecycle);
		},
		addFault: (rule: FaultRule) => context.faults.add(rule),
		clearFaults: () => context.faults.clear(),
		faults: () => context.faults.list(),
		webhookDeliveries: () => context.webhooks.list(),
		webhookSummary: () => context.webhooks.summarize(),
		startCampaign(options: CampaignOptions) {
			const url = options.url ?? context.account.webhookUrl;
			if (url === null || url === undefined)
				throw new Error("Give the campaign a 'url', or set the account webhook URL first");
			assertHttpUrl(url);
			return startCampaign(
				{
					messages: context.messages,
					lifecycle: context.lifecycle,
					timers: context.timers,
					failingRecipients: context.seed.failingRecipients,
					clock: context.clock,
				},
				options,
				url,
			);
		},
	};

	const server = createSandboxServer(context, operations);
	const port = await listen(server, options.port ?? 0, host);
	const url = `http://${host}:${port}`;

	return {
		...operations,
		url,
		port,
		apiKey: context.seed.account.apiKey,
		signingSecret: context.seed.account.signingSecret,
		close: async () => {
			context.timers.close();
			context.webhooks.close();
			await new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			});
		},
	};
}

function assertHttpUrl(url: string): void {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw new Error(`'${url}' is not an absolute URL`);
	}
	if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
		throw new Error(`'${url}' is not an http(s) URL`);
}
