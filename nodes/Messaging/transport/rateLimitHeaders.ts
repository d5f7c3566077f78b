import { readHeader } from '../../shared/readHeader';
import type { ProviderBudget } from '../vocabulary/providerBudget';

function readCount(headers: unknown, names: string[]): number | undefined {
	for (const name of names) {
		const text = readHeader(headers, name)?.trim();
		if (text !== undefined && /^\d+(\.\d+)?$/.test(text)) return Number(text);
	}
	return undefined;
}

/** `RateLimit-Policy: 100;w=1`: the first policy's quota and window (IETF draft). */
function readPolicy(headers: unknown): { quota: number; windowSeconds: number } | undefined {
	const match = /^\s*(\d+(?:\.\d+)?)\s*;(?:[^,]*;)?\s*w\s*=\s*(\d+(?:\.\d+)?)/i.exec(
		readHeader(headers, 'ratelimit-policy') ?? '',
	);
	if (!match) return undefined;
	const quota = Number(match[1]);
	const windowSeconds = Number(match[2]);
	return quota > 0 && windowSeconds > 0 ? { quota, windowSeconds } : undefined;
}

// Some providers send the reset as a Unix time (GitHub's X-RateLimit-Reset); no window lasts this many seconds.
const UNIX_TIME_FROM = 1_000_000_000;

/** `RateLimit-Reset`: seconds until the budget is whole again, or the Unix time it is. */
function readReset(headers: unknown, nowMs: number): number | undefined {
	const reset = readCount(headers, ['ratelimit-reset', 'x-ratelimit-reset']);
	if (reset === undefined) return undefined;
	return reset >= UNIX_TIME_FROM ? Math.max(0, reset - nowMs / 1000) : reset;
}

/**
 * Reads the IETF `RateLimit-Limit` / `RateLimit-Remaining` / `RateLimit-Policy` answer headers, or the older
 * `X-RateLimit-*` ones, with `RateLimit-Reset` when given. Without a policy, the limit is taken as per second.
 * Undefined when the provider sends none.
 */
export function readProviderBudget(
	headers: unknown,
	nowMs = Date.now(),
): ProviderBudget | undefined {
	const remaining = readCount(headers, ['ratelimit-remaining', 'x-ratelimit-remaining']);
	if (remaining === undefined) return undefined;
	const resetSeconds = readReset(headers, nowMs);
	const reset = resetSeconds === undefined ? {} : { resetSeconds };
	const policy = readPolicy(headers);
	if (policy) return { remaining, ...policy, ...reset };
	const limit = readCount(headers, ['ratelimit-limit', 'x-ratelimit-limit']);
	if (limit === undefined || limit <= 0) return undefined;
	return { remaining, quota: limit, windowSeconds: 1, ...reset };
}
