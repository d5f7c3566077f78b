import { ApiError } from '../http/api-error';
import type { Acknowledgement, SandboxClock } from '../types';

const DEFAULT_TTL_MS = 24 * 60 * 60 * 1000;
const DEFAULT_MAX_ENTRIES = 100_000;

interface StoredAcknowledgement {
	fingerprint: string;
	acknowledgement: Acknowledgement;
	storedAt: number;
}

/**
 * Remembers the acknowledgement given for each Idempotency-Key, per API key, for 24 hours of
 * sandbox time; the oldest keys go first when the store is full.
 */
export class IdempotencyStore {
	private readonly entries = new Map<string, StoredAcknowledgement>();

	constructor(
		private readonly clock: SandboxClock,
		private readonly ttlMs = DEFAULT_TTL_MS,
		private readonly maxEntries = DEFAULT_MAX_ENTRIES,
	) {}

	/** The acknowledgement to replay, null when the key is new; throws 422 when the key was used for another body. */
	replay(apiKey: string, idempotencyKey: string, fingerprint: string): Acknowledgement | null {
		const storeKey = `${apiKey}\n${idempotencyKey}`;
		const stored = this.entries.get(storeKey);
		if (!stored) return null;
		if (this.clock.now() - stored.storedAt >= this.ttlMs) {
			this.entries.delete(storeKey);
			return null;
		}
		if (stored.fingerprint !== fingerprint) {
			throw new ApiError(
				422,
				'idempotency_key_reused',
				`The Idempotency-Key '${idempotencyKey}' was already used for a different request. Use a new key for a new message.`,
			);
		}
		return stored.acknowledgement;
	}

	remember(
		apiKey: string,
		idempotencyKey: string,
		fingerprint: string,
		acknowledgement: Acknowledgement,
	): void {
		this.entries.set(`${apiKey}\n${idempotencyKey}`, {
			fingerprint,
			acknowledgement,
			storedAt: this.clock.now(),
		});
		if (this.entries.size > this.maxEntries) {
			const oldest = this.entries.keys().next().value;
			if (oldest !== undefined) this.entries.delete(oldest);
		}
	}

	clear(): void {
		this.entries.clear();
	}

	get size(): number {
		return this.entries.size;
	}
}

/** Same fields, whatever the encoding or key order, give the same fingerprint. */
export function requestFingerprint(path: string, fields: Record<string, unknown>): string {
	return `${path}\n${canonicalJson(decodeJsonText(fields))}`;
}

function decodeJsonText(fields: Record<string, unknown>): Record<string, unknown> {
	const decoded: Record<string, unknown> = {};
	for (const [name, value] of Object.entries(fields)) {
		decoded[name] = value;
		if (typeof value === 'string' && /^\s*[{[]/.test(value)) {
			try {
				decoded[name] = JSON.parse(value);
			} catch {
				// not JSON after all: compare it as text
			}
		}
	}
	return decoded;
}

function canonicalJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
			a < b ? -1 : a > b ? 1 : 0,
		);
		return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(',')}}`;
	}
	return JSON.stringify(value);
}
