import type { IWebhookFunctions } from 'n8n-workflow';

import { readHeader } from '../shared/readHeader';
import { parseDeliveryEvents, type MessagingEvent } from './events';
import { readSigningSecret, SIGNING_SECRET_RECHECK_MS } from './signingSecret';
import {
	SIGNATURE_HEADER,
	TIMESTAMP_HEADER,
	verifySignature,
	type VerificationFailure,
} from './verification';

export const MAX_BODY_BYTES = 256 * 1024;
export const DEFAULT_TIMESTAMP_TOLERANCE_SECONDS = 300;

export interface TriggerOptions {
	dropDuplicateEvents?: boolean;
	timestampToleranceSeconds?: number;
}

export interface Refusal {
	statusCode: number;
	code: string;
	message: string;
	field?: string;
	/** Sent as `Retry-After`: the delivery was fine, this process cannot take it now. */
	retryAfterSeconds?: number;
	/** Turning deliveries away under load is expected, not worth a warning each. */
	quiet?: boolean;
}

const VERIFICATION_MESSAGES: Record<VerificationFailure, string> = {
	missing_signature: 'The X-Messaging-Signature header is missing.',
	missing_timestamp: 'The X-Messaging-Timestamp header is missing.',
	malformed_signature:
		'The X-Messaging-Signature header must be "v1=" followed by 64 hex characters.',
	malformed_timestamp: 'The X-Messaging-Timestamp header must be a Unix time in seconds.',
	invalid_signature:
		'The signature does not match the body and timestamp; check that the trigger uses the account signing secret.',
	stale_timestamp:
		'The timestamp is outside the allowed tolerance, so the delivery is treated as a replay; check the sender clock.',
};

/**
 * n8n reads every non-multipart body into `rawBody` before the node runs. A multipart body has none,
 * which leaves an empty body: its signature cannot match, so it is refused like any unsigned one.
 */
function rawBodyOf(request: { rawBody?: unknown }): Buffer {
	const raw = request.rawBody;
	if (Buffer.isBuffer(raw)) return raw;
	if (typeof raw === 'string') return Buffer.from(raw, 'utf8');
	return Buffer.alloc(0);
}

/** Size, signature, timestamp and shape, in that order: nothing of an unsigned body is read. */
export async function readVerifiedEvents(
	context: IWebhookFunctions,
	options: TriggerOptions,
): Promise<{ events: MessagingEvent[] } | { refusal: Refusal }> {
	const rawBody = rawBodyOf(context.getRequestObject());
	if (rawBody.length > MAX_BODY_BYTES) {
		const message = `The body is ${rawBody.length} bytes; the limit is ${MAX_BODY_BYTES} bytes. Send fewer events per delivery.`;
		return { refusal: { statusCode: 413, code: 'body_too_large', message } };
	}
	let secret = await readSigningSecret(context);
	if (!secret.signingSecret && !secret.reread)
		secret = await readSigningSecret(context, SIGNING_SECRET_RECHECK_MS);
	if (!secret.signingSecret) {
		// 500 rather than 401: the sender is not at fault, and its retries keep the events until this is fixed.
		const message =
			'The Messaging Trigger credential has no signing secret. Paste the account signing secret into it.';
		return { refusal: { statusCode: 500, code: 'signing_secret_missing', message } };
	}
	const headers = context.getHeaderData();
	const verify = (signingSecret: string) =>
		verifySignature({
			signingSecret,
			signatureHeader: readHeader(headers, SIGNATURE_HEADER),
			timestampHeader: readHeader(headers, TIMESTAMP_HEADER),
			rawBody,
			nowSeconds: Math.floor(Date.now() / 1000),
			toleranceSeconds: options.timestampToleranceSeconds ?? DEFAULT_TIMESTAMP_TOLERANCE_SECONDS,
		});
	let verification = verify(secret.signingSecret);
	if (!verification.valid && verification.reason === 'invalid_signature' && !secret.reread) {
		secret = await readSigningSecret(context, SIGNING_SECRET_RECHECK_MS);
		if (secret.reread && secret.signingSecret) verification = verify(secret.signingSecret);
	}
	if (!verification.valid) {
		const { reason } = verification;
		return { refusal: { statusCode: 401, code: reason, message: VERIFICATION_MESSAGES[reason] } };
	}
	const parsed = parseDeliveryEvents(rawBody);
	if ('invalid' in parsed) return { refusal: { statusCode: 400, ...parsed.invalid } };
	return parsed;
}
