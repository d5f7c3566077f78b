import { readHeader } from '../../shared/readHeader';
import type { ProviderBudget } from '../throughput/providerBudget';

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

/**
 * Reads the IETF `RateLimit-Limit` / `RateLimit-Remaining` / `RateLimit-Policy` answer headers, or the older
 * `X-RateLimit-*` pair. Without a policy, the limit is taken as per second. Undefined when the provider sends none.
 */
export function readProviderBudget(headers: unknown): ProviderBudget | undefined {
	const remaining = readCount(headers, ['ratelimit-remaining', 'x-ratelimit-remaining']);
	if (remaining === undefined) return undefined;
	const policy = readPolicy(headers);
	if (policy) return { remaining, ...policy };
	const limit = readCount(headers, ['ratelimit-limit', 'x-ratelimit-limit']);
	if (limit === undefined || limit <= 0) return undefined;
	return { remaining, quota: limit, windowSeconds: 1 };
}
