import type { Clock } from '../../throughput/clock';
import type { ClassifiedFailure } from '../../vocabulary/failureKind';
import { LONGEST_BUDGET_WAIT_MS } from '../../vocabulary/providerBudget';
import { parseRetryAfter } from '../../vocabulary/retryAfter';

export interface RetryOptions {
	/** Total tries, the first included: Max Tries per Message, for 429s and network failures alike. */
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

/**
 * The last answer (a success, or the failure tries ran out on), or what was thrown instead of an answer (the
 * pacing's refusal to wait for a budget reset too far away). The caller decides how to surface a failure.
 */
export type RetryOutcome<Answer> =
	| { answer: Answer; triesMade: number }
	| { error: unknown; triesMade: number };

const DEFAULT_BASE_DELAY_MS = 500;
const DEFAULT_MAX_BACKOFF_MS = 60_000;

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

/** Sends until an answer is no failure (`failureOf` answers undefined), or the failure is not to be retried. */
export async function sendWithRetries<Answer>(
	send: (tryNumber: number) => Promise<Answer>,
	failureOf: (answer: Answer) => ClassifiedFailure | undefined,
	options: RetryOptions,
	clock: Clock,
): Promise<RetryOutcome<Answer>> {
	for (let tryNumber = 1; ; tryNumber++) {
		let answer: Answer;
		try {
			answer = await send(tryNumber);
		} catch (error) {
			return { error, triesMade: tryNumber };
		}
		const failure = failureOf(answer);
		const delay = failure && retryDelayMs(failure, tryNumber, options, clock.now());
		if (delay === undefined) return { answer, triesMade: tryNumber };
		await clock.sleep(delay);
	}
}
