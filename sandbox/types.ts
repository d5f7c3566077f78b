export type Channel = 'sms' | 'whatsapp';

export type MessageStatus = 'queued' | 'sent' | 'delivered' | 'read' | 'failed' | 'undelivered';

export interface SandboxClock {
	now(): number;
	advance(ms: number): void;
}

export interface DltTemplate {
	templateId: string;
	name: string;
	variables: string[];
}

export interface DltEntity {
	entityId: string;
	templates: DltTemplate[];
}

export interface WhatsAppTemplate {
	name: string;
	header: number;
	body: number;
	buttons: number;
	/** The quick-reply buttons' labels, by position; "Button <n>" where none is seeded. */
	buttonTexts?: string[];
}

export interface FailingRecipient {
	to: string;
	channel: Channel;
	status: 'failed' | 'undelivered';
	code: string;
	message: string;
}

export interface SandboxSeed {
	/** `businessNumber` is the account's WhatsApp number: the `to` of every inbound message. */
	account: {
		apiKey: string;
		signingSecret: string;
		webhookUrl: string | null;
		businessNumber: string;
	};
	dltEntities: DltEntity[];
	whatsappTemplates: WhatsAppTemplate[];
	failingRecipients: FailingRecipient[];
	openSessionsFor: string[];
}

export interface LatencyConfig {
	fixedMs: number;
	jitterMs?: number;
}

export interface RateLimitConfig {
	/** A token bucket refilled continuously; optional when a window or a daily cap is set. */
	perSecond?: number;
	burst?: number;
	/** A fixed window of any length: `limit` requests per `seconds`, counted from the window's first request. */
	window?: { limit: number; seconds: number };
	/** Requests per UTC day of the sandbox clock. */
	dailyCap?: number;
	/** false: answer without the RateLimit-* headers, as a provider that only says 429 does. Default true. */
	budgetHeaders?: boolean;
}

/** Every message moves one status every stepDelayMs: predictable, for tests that count events. */
export interface FixedStepLifecycle {
	stepDelayMs: number;
}

/**
 * Delays spread as a provider's are (sandbox/README.md "Realistic lifecycle"): `sent` 1-3 s after acceptance,
 * `delivered` a few seconds later, `read` (WhatsApp) later still; a share of messages ends `failed`.
 */
export interface RealisticLifecycle {
	mode: 'realistic';
	/** Multiplies every delay: 0.01 plays a minute of events in 0.6 s. Default 1. */
	timeScale?: number;
	/** Seeds the delays and which messages fail, for a run that replays exactly. Default: a random seed. */
	seed?: number;
	/** Share of messages (0 to 1) that end `failed` with an error code instead of being delivered. Default 0.03. */
	failedShare?: number;
}

export type LifecycleConfig = FixedStepLifecycle | RealisticLifecycle;

export interface WebhookBatchConfig {
	/** At most this many events in one POST (a JSON array body). */
	maxEvents: number;
	/** How long the first event of a batch waits for more to the same URL. */
	lingerMs: number;
}

export interface WebhookConfig {
	timeoutMs?: number;
	maxAttempts?: number;
	baseDelayMs?: number;
	/** Outgoing webhook requests in flight at once, over every URL. Default 100. */
	maxConcurrent?: number;
	/** Several events per POST, SendGrid style; null (the default) sends one event per POST. */
	batch?: WebhookBatchConfig | null;
}

export interface SandboxOptions {
	port?: number;
	host?: string;
	seed?: SandboxSeed;
	clock?: SandboxClock;
	latency?: LatencyConfig | null;
	rateLimit?: RateLimitConfig | null;
	/** null turns the lifecycle off: messages keep their acknowledged status. */
	lifecycle?: LifecycleConfig | null;
	webhooks?: WebhookConfig;
	/** Fault rules active from the start, as if added with addFault. */
	faults?: FaultRule[];
	/** Defaults to true in-process; the cli passes false to log one line per request. */
	quiet?: boolean;
	/** 'ignore' plays a provider that takes no notice of Idempotency-Key (many do); 'honour' by default. */
	idempotencyKeys?: IdempotencyKeyHandling;
}

export type IdempotencyKeyHandling = 'honour' | 'ignore';

export interface SandboxConfigPatch {
	latency: LatencyConfig | null;
	rateLimit: RateLimitConfig | null;
	lifecycle: LifecycleConfig | null;
	idempotencyKeys: IdempotencyKeyHandling;
	/** Merged into the current webhook settings; `batch: null` goes back to one event per POST. */
	webhooks: WebhookConfig;
}

/** A campaign's worth of accepted messages, without sending them through the API. */
export interface CampaignOptions {
	/** How many messages, 1 to 100,000. */
	count: number;
	/** Default "whatsapp" (three events a delivered message: sent, delivered, read). */
	channel?: Channel;
	/** Where their events go; default the account webhook URL. */
	url?: string;
	/** Share of messages ending `failed`; default the lifecycle's (0.03). */
	failedShare?: number;
	/** Messages accepted per second of campaign time. Default 100. */
	perSecond?: number;
	/** Multiplies every delay, the acceptance pace included. Default the lifecycle's, else 1. */
	timeScale?: number;
	/** Seeds delays and failures; the answer says the one used. */
	seed?: number;
}

export interface CampaignStarted {
	campaignId: string;
	count: number;
	channel: Channel;
	url: string;
	seed: number;
	/** Messages planned to end failed. */
	failed: number;
	/** Status events the campaign will post in all. */
	expectedEvents: number;
	/** Real milliseconds until the last message is accepted. */
	acceptingForMs: number;
}

/**
 * Outcomes per event since the sandbox started, cheap to read at any size (webhookDeliveries keeps only the last
 * 100,000 attempts). Diff two summaries to count one run.
 */
export interface WebhookSummary {
	/** Events handed to delivery. */
	events: number;
	/** Answered 2xx, by how many attempts it took: { "1": 29950, "2": 50 }. */
	deliveredAfterAttempts: Record<string, number>;
	delivered: number;
	/** Neither answered 2xx nor given up yet (waiting, in flight, or backing off). */
	pending: number;
	/** Every attempt failed. */
	gaveUp: number;
	/** HTTP requests made; a batched POST counts once. */
	posts: number;
	/** POSTs by the receiver's HTTP status; "none" when no answer came (refused, reset, timed out). */
	postsByHttpStatus: Record<string, number>;
	/** Delivered events by what they report: sent, delivered, read, failed, undelivered, inbound. */
	deliveredByEventStatus: Record<string, number>;
	inFlight: number;
	maxInFlight: number;
}

export interface ErrorDetail {
	code: string;
	message: string;
}

export interface Acknowledgement {
	message_id: string;
	status: MessageStatus;
	channel: Channel;
}

export interface StatusChange {
	status: MessageStatus;
	at: number;
	error: ErrorDetail | null;
}

export type AcceptedUnderFault =
	| 'delay'
	| 'reset-after-body'
	| 'not-json'
	| 'ack-without-id'
	| 'status';

export interface MessageRecord {
	id: string;
	channel: Channel;
	to: string;
	status: MessageStatus;
	error: ErrorDetail | null;
	acceptedAt: number;
	/** The request fields exactly as received. */
	fields: Record<string, unknown>;
	callbackUrl: string | null;
	idempotencyKey: string | null;
	acknowledgement: Acknowledgement;
	/**
	 * Set when a fault rule changed the answer after the message was accepted: the provider holds
	 * the message although the client never saw a usable acknowledgement.
	 */
	acceptedUnderFault: AcceptedUnderFault | null;
	history: StatusChange[];
}

export interface RecordedResponse {
	/** 0 when the connection was reset instead of answered. */
	status: number;
	body: unknown;
}

export interface RecordedRequest {
	method: string;
	path: string;
	headers: Record<string, string>;
	contentType: string;
	rawBody: string;
	fields: Record<string, unknown>;
	receivedAt: number;
	response: RecordedResponse;
}

export type FaultBodyKind = 'json' | 'text' | 'html' | 'empty' | 'not-json' | 'ack-without-id';

export interface RespondFaultAction {
	status: number;
	bodyKind: FaultBodyKind;
	/** Replaces the generated body text for json, text and html. */
	body?: string;
	headers?: Record<string, string>;
}

export interface DelayFaultAction {
	delayMs: number;
}

export interface ResetFaultAction {
	reset: 'before-body' | 'after-body';
}

export type FaultAction = RespondFaultAction | DelayFaultAction | ResetFaultAction;

export interface FaultMatch {
	path?: string;
	to?: string;
	/** Apply to the next N matching requests only; unlimited when absent. */
	times?: number;
}

export interface FaultRule {
	match?: FaultMatch;
	action: FaultAction;
}

export interface ActiveFaultRule {
	id: string;
	rule: FaultRule;
	/** Matching requests still to hit; null for unlimited. */
	remaining: number | null;
}

export interface WebhookDelivery {
	eventId: string;
	eventType: WebhookEvent['type'];
	messageId: string;
	/** The status the event reports; null for an inbound message. */
	messageStatus: MessageStatus | null;
	url: string;
	attempt: number;
	at: number;
	/** HTTP status of the receiver's answer, or null when the attempt failed without one. */
	status: number | null;
	error: string | null;
	/** Only when batching is on: how many events the POST (a JSON array) carried. */
	batchSize?: number;
}

export interface DeliveryEvent {
	event_id: string;
	type: 'message.status';
	message_id: string;
	channel: Channel;
	status: MessageStatus;
	timestamp: string;
	recipient: string;
	error: ErrorDetail | null;
}

export type InboundMessageType = 'text' | 'button';

/** A WhatsApp user wrote to the business number, or pressed a quick-reply button of one of our templates. */
export interface InboundEvent {
	event_id: string;
	type: 'message.inbound';
	message_id: string;
	channel: 'whatsapp';
	from: string;
	to: string;
	timestamp: string;
	message_type: InboundMessageType;
	text?: string;
	button?: { payload: string; text: string };
	/** Present when the message answers one of ours. */
	context?: { message_id: string };
}

export type WebhookEvent = DeliveryEvent | InboundEvent;

/**
 * What the simulated user sends: a text (the default), or a press of the quick-reply button at `position` of a
 * template message we sent them. `replyTo` makes a text a reply to one of our messages.
 */
export interface InboundSimulation {
	from?: string;
	text?: string;
	replyTo?: string;
	button?: { messageId: string; position: number; text?: string };
}

export interface Sandbox {
	url: string;
	port: number;
	apiKey: string;
	signingSecret: string;
	clock: SandboxClock;
	requests(): RecordedRequest[];
	clearRequests(): void;
	messages(): MessageRecord[];
	/** Forgets every accepted message and the Idempotency-Keys that would replay one. */
	clearMessages(): void;
	/** Opens the sender's session window and POSTs a signed `message.inbound` event to the account webhook. */
	simulateInbound(input: string | InboundSimulation): InboundEvent;
	setWebhookUrl(url: string | null): void;
	configure(patch: Partial<SandboxConfigPatch>): void;
	addFault(rule: FaultRule): string;
	clearFaults(): void;
	/** The rules still active, with how many matching requests each has left. */
	faults(): ActiveFaultRule[];
	webhookDeliveries(): WebhookDelivery[];
	webhookSummary(): WebhookSummary;
	/** Accepts `count` messages at campaign pace and plays their realistic lifecycle. */
	startCampaign(options: CampaignOptions): CampaignStarted;
	close(): Promise<void>;
}
