import type { Clock } from './clock';
import { LONGEST_BUDGET_WAIT_MS } from './providerBudget';

/**
 * - `rate_limited`: the provider refused before processing (429); always safe to send again.
 * - `not_sent`: the request never reached the provider (connection refused, DNS); safe to send again.
 * - `maybe_processed`: the provider may have accepted it (5xx, timeout or reset after the body was sent);
 *   sending again could deliver twice, so only with an idempotency key.
 * - `final`: retrying cannot help (other 4xx, malformed acknowledgement).
 */
export type FailureKind = 'rate_limited' | 'not_sent' | 'maybe_processed' | 'final';

export interface ClassifiedFailure {
	kind: FailureKind;
	/** The raw `Retry-After` header: delay-seconds or an HTTP date. */
	retryAfter?: string;
}

export interface RetryOptions {
	/** Total tries, the first included. */
	maxTries: number;
	idempotent: boolean;
	baseDelayMs?: number;
	/**
	 * Longest wait between tries: the backoff stops growing there, and a Retry-After asking for longer makes the
	 * item fail now rather than stall the run. Default: a minute of backoff, the wait for a budget reset up to an hour.
	 */
	maxDelayMs?: number;
	random?: () => number;
}

/** The caller decides how to surface a failure (and can say how many tries were made), so nothing is rethrown here. */
export type RetryOutcome<T> =
	| { ok: true; value: T; triesMade: number }
	| { ok: false; error: unknown; triesMade: number };

const DEFAULT_BASE_DELAY_MS = 500;
const DEFAULT_MAX_BACKOFF_MS = 60_000;

/** Retry-After is either delay-seconds or an HTTP date. */
export const RETRY_AFTER_SECONDS = /^\d+(\.\d+)?$/;

export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
	if (value === undefined) return undefined;
	const trimmed = value.trim();
	if (trimmed === '') return undefined;
	if (RETRY_AFTER_SECONDS.test(trimmed)) return Math.round(Number(trimmed) * 1000);
	const date = Date.parse(trimmed);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - nowMs);
}

export function isRetryable(failure: ClassifiedFailure, idempotent: boolean): boolean {
	switch (failure.kind) {
		case 'rate_limited':
		case 'not_sent':
			return true;
		case 'maybe_processed':
			return idempotent;
		default:
			return false;
	}
}

/** Exponential backoff with "equal jitter": never shorter than half the step, so tries cannot bunch up at zero. */
export function backoffDelayMs(retryNumber: number, options: RetryOptions): number {
	const base = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
	const max = options.maxDelayMs ?? DEFAULT_MAX_BACKOFF_MS;
	const random = options.random ?? Math.random;
	const step = Math.min(max, base * 2 ** (retryNumber - 1));
	return Math.round(step / 2 + random() * (step / 2));
}

/** The wait before try `failedTry + 1`, or undefined when the item should fail now. */
export function retryDelayMs(
	failure: ClassifiedFailure,
	failedTry: number,
	options: RetryOptions,
	nowMs: number,
): number | undefined {
	if (failedTry >= options.maxTries || !isRetryable(failure, options.idempotent)) return undefined;
	const requested =
		failure.kind === 'rate_limited' ? parseRetryAfter(failure.retryAfter, nowMs) : undefined;
	if (requested === undefined) return backoffDelayMs(failedTry, options);
	return requested <= (options.maxDelayMs ?? LONGEST_BUDGET_WAIT_MS) ? requested : undefined;
}

export async function sendWithRetries<T>(
	send: (tryNumber: number) => Promise<T>,
	classify: (error: unknown) => ClassifiedFailure,
	options: RetryOptions,
	clock: Clock,
): Promise<RetryOutcome<T>> {
	for (let tryNumber = 1; ; tryNumber++) {
		try {
			return { ok: true, value: await send(tryNumber), triesMade: tryNumber };
		} catch (error) {
			const delay = retryDelayMs(classify(error), tryNumber, options, clock.now());
			if (delay === undefined) return { ok: false, error, triesMade: tryNumber };
			await clock.sleep(delay);
		}
	}
}
