/**
 * - `rate_limited`: the provider refused before processing (429); always safe to send again.
 * - `not_sent`: the request never reached the provider (connection refused, DNS); safe to send again.
 * - `maybe_processed`: the provider may have accepted it (5xx, timeout or reset after the body was sent);
 *   sending again could deliver twice, so only with an idempotency key.
 * - `final`: retrying cannot help (other 4xx, malformed acknowledgement).
 */
export type FailureKind = 'rate_limited' | 'not_sent' | 'maybe_processed' | 'final';

/** What pacing and the retry rules read of a failed send: its kind, and how long the provider asked to wait. */
export interface ClassifiedFailure {
	kind: FailureKind;
	/** The raw `Retry-After` header: delay-seconds or an HTTP date. */
	retryAfter?: string;
}
