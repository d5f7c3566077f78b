import { createHmac } from 'node:crypto';

export const SIGNATURE_VERSION = 'v1';

/** Hex HMAC-SHA256 over "<timestamp>.<raw body>": the value after "v1=" in X-Messaging-Signature. */
export function signPayload(secret: string, timestamp: number | string, rawBody: string): string {
	return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
}

/** eventId null for a batched POST: its events carry their ids in the body. */
export function deliveryHeaders(
	secret: string,
	eventId: string | null,
	timestampSeconds: number,
	rawBody: string,
): Record<string, string> {
	return {
		'Content-Type': 'application/json',
		'User-Agent': 'messaging-api-sandbox-webhooks/1',
		...(eventId === null ? {} : { 'X-Messaging-Event-Id': eventId }),
		'X-Messaging-Timestamp': String(timestampSeconds),
		'X-Messaging-Signature': `${SIGNATURE_VERSION}=${signPayload(secret, timestampSeconds, rawBody)}`,
	};
}
