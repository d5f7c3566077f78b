import { hash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import type { MessagingRequest } from '../../transport/messagingRequest';

/**
 * Same data, whatever the key order: a re-run rebuilds its items, it does not keep their key order. One
 * JSON.stringify over key-sorted copies costs under half of building the text value by value, which a campaign pays
 * per message before its first send.
 */
export function canonicalJson(value: unknown): string {
	return JSON.stringify(withSortedKeys(value)) ?? 'null';
}

function withSortedKeys(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(withSortedKeys);
	if (value === null || typeof value !== 'object') return value;
	const sorted: Record<string, unknown> = {};
	for (const key of Object.keys(value).sort()) {
		const inner = withSortedKeys((value as Record<string, unknown>)[key]);
		// Assigned, a `__proto__` key of the data would set the copy's prototype instead of staying a key.
		if (key === '__proto__') Object.defineProperty(sorted, key, { value: inner, enumerable: true });
		else sorted[key] = inner;
	}
	return sorted;
}

/** One-shot: a Hash object per message is garbage n8n's busy main thread collects while sending. */
function digest(text: string): string {
	return hash('sha256', text, 'base64url');
}

/**
 * What makes one message one message across runs. Only the workflow, the node, the input items and the message
 * carry over from a crashed or retried execution, so the identity is built from those: the request itself, and
 * what it is sent for, which is the user's Idempotency Key when there is one, else the whole input item (an
 * inbound message's id, a row). The reason tells a legitimate repeat (a new inbound message, a new row) from
 * a re-run; the request keeps a changed message from passing for the old one.
 */
export interface MessageReason {
	request: MessagingRequest;
	userKey?: string;
	inputItem: IDataObject;
}

export function messageIdentity({ request, userKey, inputItem }: MessageReason): string {
	const reason = userKey === undefined ? { item: inputItem } : { key: userKey };
	return digest(canonicalJson({ path: request.path, fields: request.fields, ...reason }));
}

/**
 * Identical items in one run are each a message (today's behaviour): the n-th occurrence of an identity gets
 * its own, as stable across re-runs as the count of identical items.
 */
export function numberOccurrences(identities: string[]): string[] {
	const seen = new Map<string, number>();
	return identities.map((identity) => {
		const occurrence = (seen.get(identity) ?? 0) + 1;
		seen.set(identity, occurrence);
		return occurrence === 1 ? identity : digest(`${identity}#${occurrence}`);
	});
}

/** The provider's key: unique to this workflow and node on an account that several workflows share. */
export function automaticIdempotencyKey(workflowId: string, nodeId: string, identity: string) {
	return `n8n-${digest(`${workflowId}\n${nodeId}\n${identity}`)}`;
}
