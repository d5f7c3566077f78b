/** Retry-After is either delay-seconds or an HTTP date. */
export const RETRY_AFTER_SECONDS = /^\d+(\.\d+)?$/;

/** The wait a Retry-After asks for, in ms; undefined when there is none or it cannot be read. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
	if (value === undefined) return undefined;
	const trimmed = value.trim();
	if (trimmed === '') return undefined;
	if (RETRY_AFTER_SECONDS.test(trimmed)) return Math.round(Number(trimmed) * 1000);
	const date = Date.parse(trimmed);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - nowMs);
}
