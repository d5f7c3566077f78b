import type { Acknowledgement } from './messagingRequest';

function parseBody(body: unknown): unknown {
	if (Buffer.isBuffer(body)) return parseBody(body.toString('utf8'));
	if (typeof body !== 'string') return body;
	try {
		return JSON.parse(body);
	} catch {
		return body;
	}
}

/** A 2xx that is not a real acknowledgement must fail the item: reporting success would hide a lost message. */
export function readAcknowledgement(body: unknown): Acknowledgement | undefined {
	const parsed = parseBody(body);
	if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
	const { message_id: messageId, status, channel } = parsed as Record<string, unknown>;
	const isText = (value: unknown) => typeof value === 'string' && value.trim() !== '';
	if (!isText(messageId) || !isText(status) || !isText(channel)) return undefined;
	return parsed as Acknowledgement;
}
