import { BoundedLog } from './bounded-log';
import { createSystemClock } from './clock';
import { FaultRules } from './faults/fault-rules';
import { BODY_LIMIT_BYTES } from './http/read-body';
import { Lifecycle } from './messages/lifecycle';
import { MessageStore } from './messages/message-store';
import { DEFAULT_SEED } from './seed';
import { SessionWindows } from './session-windows';
import { TemplateRegistry } from './templates';
import { IdempotencyStore } from './throughput/idempotency-store';
import { RateLimiter } from './throughput/rate-limiter';
import { TimerRegistry } from './timers';
import type {
	IdempotencyKeyHandling,
	LatencyConfig,
	MessageRecord,
	RecordedRequest,
	SandboxClock,
	SandboxOptions,
	SandboxSeed,
	StatusChange,
} from './types';
import { statusEvent } from './webhooks/delivery-event';
import { WebhookDispatcher } from './webhooks/webhook-dispatcher';

const MAX_RECORDED_REQUESTS = 100_000;

/** Everything one running sandbox holds; the routes read and change it. */
export interface SandboxContext {
	seed: SandboxSeed;
	clock: SandboxClock;
	apiKeys: ReadonlySet<string>;
	account: { signingSecret: string; webhookUrl: string | null };
	bodyLimitBytes: number;
	latency: LatencyConfig | null;
	templates: TemplateRegistry;
	sessions: SessionWindows;
	messages: MessageStore;
	/** Every API request, accepted or rejected, in arrival order: the last 100,000. */
	requestLog: BoundedLog<RecordedRequest>;
	rateLimiter: RateLimiter;
	idempotency: IdempotencyStore;
	idempotencyKeys: IdempotencyKeyHandling;
	lifecycle: Lifecycle;
	webhooks: WebhookDispatcher;
	faults: FaultRules;
	timers: TimerRegistry;
	log: (line: string) => void;
}

export function createSandboxContext(options: SandboxOptions): SandboxContext {
	const seed = options.seed ?? DEFAULT_SEED;
	const clock = options.clock ?? createSystemClock();
	const timers = new TimerRegistry();
	const messages = new MessageStore(clock);
	const sessions = new SessionWindows(clock);
	for (const number of seed.openSessionsFor) sessions.recordInbound(number);
	const quiet = options.quiet ?? true;
	const faults = new FaultRules();
	for (const rule of options.faults ?? []) faults.add(rule);
	const account = {
		signingSecret: seed.account.signingSecret,
		webhookUrl: seed.account.webhookUrl,
	};
	const webhooks = new WebhookDispatcher(
		options.webhooks ?? {},
		clock,
		timers,
		account.signingSecret,
	);
	// The per-message callback_url replaces the account webhook, never adds to it.
	const announceStatusChange = (message: MessageRecord, change: StatusChange) => {
		const url = message.callbackUrl ?? account.webhookUrl;
		if (url !== null) webhooks.enqueue(statusEvent(message, change), url);
	};
	return {
		seed,
		clock,
		apiKeys: new Set([seed.account.apiKey]),
		account,
		bodyLimitBytes: BODY_LIMIT_BYTES,
		latency: checkedLatency(options.latency ?? null),
		templates: new TemplateRegistry(seed),
		sessions,
		messages,
		requestLog: new BoundedLog<RecordedRequest>(MAX_RECORDED_REQUESTS),
		rateLimiter: new RateLimiter(options.rateLimit ?? null, undefined, () => clock.now()),
		idempotency: new IdempotencyStore(clock),
		idempotencyKeys: checkedIdempotencyKeys(options.idempotencyKeys ?? 'honour'),
		lifecycle: new Lifecycle(
			options.lifecycle === undefined ? { stepDelayMs: 1000 } : options.lifecycle,
			messages,
			timers,
			seed.failingRecipients,
			announceStatusChange,
		),
		webhooks,
		faults,
		timers,
		log: quiet ? () => undefined : (line) => process.stdout.write(`${line}\n`),
	};
}

export function checkedLatency(latency: LatencyConfig | null): LatencyConfig | null {
	if (latency === null) return null;
	if (typeof latency !== 'object' || !(latency.fixedMs >= 0) || !((latency.jitterMs ?? 0) >= 0)) {
		throw new Error('latency.fixedMs and latency.jitterMs must be 0 or more');
	}
	return latency;
}

export function latencyDelayMs(latency: LatencyConfig | null): number {
	if (latency === null) return 0;
	return latency.fixedMs + Math.random() * (latency.jitterMs ?? 0);
}

export function checkedIdempotencyKeys(handling: unknown): IdempotencyKeyHandling {
	if (handling !== 'honour' && handling !== 'ignore')
		throw new Error("idempotencyKeys must be 'honour' or 'ignore'");
	return handling;
}
