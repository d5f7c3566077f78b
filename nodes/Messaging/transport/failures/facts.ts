import { readHeader } from '../../../shared/readHeader';
import type { ClassifiedFailure } from '../../vocabulary/failureKind';

/** Plain values copied out of a failure; the raw client error is never kept, its config holds the Authorization header. */
export interface FailureFacts {
	status?: number;
	retryAfter?: string;
	providerMessage?: string;
	providerField?: string;
	/** The provider's machine-readable error code, e.g. session_window_closed. */
	providerCode?: string;
	networkCode?: string;
	timedOut?: boolean;
	invalidAcknowledgement?: boolean;
	/** A thrown error that is no network or HTTP failure (no status, no system error code): its message, masked. */
	unexpectedError?: string;
}

const NOT_SENT_CODES = new Set([
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'ENETDOWN',
	'EADDRNOTAVAIL',
	'UND_ERR_CONNECT_TIMEOUT',
	'ERR_INVALID_URL',
]);

/** What the retry policy makes of a failure: whether the message may have gone out, and whether to wait. */
export function classifyFacts(facts: FailureFacts): ClassifiedFailure {
	if (facts.invalidAcknowledgement || facts.unexpectedError !== undefined) return { kind: 'final' };
	if (facts.status === 429) return { kind: 'rate_limited', retryAfter: facts.retryAfter };
	if (facts.status !== undefined)
		return { kind: facts.status >= 500 ? 'maybe_processed' : 'final' };
	if (facts.networkCode && NOT_SENT_CODES.has(facts.networkCode)) return { kind: 'not_sent' };
	if (facts.networkCode === 'ERR_CANCELED') return { kind: 'final' };
	return { kind: 'maybe_processed' };
}

const MAX_PROVIDER_MESSAGE = 500;
const ERROR_CODE = /^[a-z][a-z0-9_]{0,63}$/;

function stripHtml(text: string): string {
	return text
		.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
		.replace(/<[^>]+>/g, ' ')
		.replace(/&nbsp;/g, ' ')
		.replace(/\s+/g, ' ')
		.trim();
}

function clip(text: string): string {
	return text.length > MAX_PROVIDER_MESSAGE ? `${text.slice(0, MAX_PROVIDER_MESSAGE)}…` : text;
}

function messageOf(entry: unknown): string | undefined {
	if (typeof entry === 'string') return entry;
	if (entry && typeof entry === 'object') {
		const { message, detail, title } = entry as Record<string, unknown>;
		const text = [message, detail, title].find((value) => typeof value === 'string');
		return text as string | undefined;
	}
	return undefined;
}

/** The one way the API key is masked in any text a user may see: errors, error items, credential-test messages. */
export function redactSecret(text: string, secret: string | undefined): string;
export function redactSecret(
	text: string | undefined,
	secret: string | undefined,
): string | undefined;
export function redactSecret(
	text: string | undefined,
	secret: string | undefined,
): string | undefined {
	if (!text || !secret) return text;
	return text.split(secret).join('***');
}

/** The key is taken out before anything is clipped: a clip through the key would leave a part no later redaction finds. */
function withoutSecret(body: unknown, secret: string): unknown {
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : body;
	if (typeof text === 'string') return redactSecret(text, secret);
	if (text && typeof text === 'object') {
		// Inside JSON the key appears escaped, so the escaped form is what gets masked.
		const escaped = JSON.stringify(secret).slice(1, -1);
		return JSON.parse(redactSecret(JSON.stringify(text), escaped)) as unknown;
	}
	return text;
}

/** Understands the common error body shapes: {error:{message}}, {message}, {error:"…"}, {errors:[…]}, text and HTML. */
export function readProviderMessage(
	body: unknown,
	secret?: string,
): { message?: string; field?: string; code?: string } {
	if (secret) return readProviderMessage(withoutSecret(body, secret));
	if (body === undefined || body === null) return {};
	if (Buffer.isBuffer(body)) return readProviderMessage(body.toString('utf8'));
	if (typeof body === 'string') {
		const trimmed = body.trim();
		if (trimmed === '') return {};
		if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
			try {
				return readProviderMessage(JSON.parse(trimmed));
			} catch {
				return { message: clip(trimmed) };
			}
		}
		return {
			message: clip(/<[a-z!/][^>]*>/i.test(trimmed) ? stripHtml(trimmed) : trimmed) || undefined,
		};
	}
	if (typeof body !== 'object') return { message: clip(String(body)) };

	const record = body as Record<string, unknown>;
	const nested = record.error;
	if (nested && typeof nested === 'object' && !Array.isArray(nested)) {
		const { field, code } = nested as Record<string, unknown>;
		return {
			message: messageOf(nested) && clip(messageOf(nested)!),
			field: typeof field === 'string' ? field : undefined,
			code: typeof code === 'string' && ERROR_CODE.test(code) ? code : undefined,
		};
	}
	if (typeof nested === 'string') return { message: clip(nested) };
	if (typeof record.message === 'string') return { message: clip(record.message) };
	if (Array.isArray(record.errors)) {
		const messages = record.errors.map(messageOf).filter((text): text is string => Boolean(text));
		if (messages.length) return { message: clip(messages.join('; ')) };
	}
	return { message: clip(JSON.stringify(body)) };
}

const TIMEOUT_CODES = new Set([
	'ECONNABORTED',
	'ETIMEDOUT',
	'UND_ERR_HEADERS_TIMEOUT',
	'UND_ERR_BODY_TIMEOUT',
]);

/** The facts of a request the API answered with a failing status. */
export function answeredFailureFacts(
	status: number,
	headers: unknown,
	body: unknown,
	secret?: string,
): FailureFacts {
	const provider = readProviderMessage(body, secret);
	return {
		status,
		retryAfter: readHeader(headers, 'retry-after'),
		providerMessage: provider.message,
		providerField: provider.field,
		providerCode: provider.code,
	};
}

function responseFacts(response: unknown, secret?: string): FailureFacts | undefined {
	if (!response || typeof response !== 'object') return undefined;
	const { status, headers, data } = response as {
		status?: unknown;
		headers?: unknown;
		data?: unknown;
	};
	return typeof status === 'number'
		? answeredFailureFacts(status, headers, data, secret)
		: undefined;
}

function unexpectedMessage(error: unknown, secret?: string): string {
	const message = error instanceof Error ? error.message : String(error);
	return clip(redactSecret(message, secret) || 'no message');
}

/**
 * Walks the `cause` chain for a Node.js error code, or for an HTTP answer should the client have thrown on
 * a status despite `ignoreHttpStatusErrors`; only plain values are copied. Neither means the failure was no
 * network or HTTP one (a credential that cannot be read, a bug), and it is told as such.
 */
export function thrownFailureFacts(error: unknown, secret?: string): FailureFacts {
	let networkCode: string | undefined;
	let timedOut = false;
	let current: unknown = error;
	for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
		const answered = responseFacts((current as { response?: unknown }).response, secret);
		if (answered) return answered;
		const { code, message } = current as { code?: unknown; message?: unknown };
		if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code) && networkCode === undefined)
			networkCode = code;
		if (typeof message === 'string' && /timeout|timed out/i.test(message)) timedOut = true;
		current = (current as { cause?: unknown }).cause;
	}
	if (networkCode && TIMEOUT_CODES.has(networkCode)) timedOut = true;
	if (!networkCode && !timedOut) return { unexpectedError: unexpectedMessage(error, secret) };
	return { networkCode, timedOut };
}
