import { createHmac, timingSafeEqual } from 'crypto';

export const SIGNATURE_HEADER = 'x-messaging-signature';
export const TIMESTAMP_HEADER = 'x-messaging-timestamp';
export const SIGNATURE_VERSION_PREFIX = 'v1=';

export type VerificationFailure =
	| 'missing_signature'
	| 'missing_timestamp'
	| 'malformed_signature'
	| 'malformed_timestamp'
	| 'invalid_signature'
	| 'stale_timestamp';

export type VerificationResult = { valid: true } | { valid: false; reason: VerificationFailure };

export interface SignedDelivery {
	signingSecret: string;
	signatureHeader: string | undefined;
	timestampHeader: string | undefined;
	rawBody: Buffer;
	nowSeconds: number;
	toleranceSeconds: number;
}

const HEX_SHA256_PATTERN = /^[0-9a-f]{64}$/i;
const UNIX_SECONDS_PATTERN = /^\d{1,12}$/;

export function computeSignature(
	signingSecret: string,
	timestamp: string,
	rawBody: Buffer,
): string {
	return createHmac('sha256', signingSecret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/** Returns the hex digest of a `v1=<hex>` header, or undefined when the header has another shape. */
export function parseSignatureHeader(header: string): string | undefined {
	const trimmed = header.trim();
	if (!trimmed.startsWith(SIGNATURE_VERSION_PREFIX)) return undefined;
	const digest = trimmed.slice(SIGNATURE_VERSION_PREFIX.length);
	return HEX_SHA256_PATTERN.test(digest) ? digest.toLowerCase() : undefined;
}

export function parseTimestampHeader(header: string): number | undefined {
	const trimmed = header.trim();
	return UNIX_SECONDS_PATTERN.test(trimmed) ? Number(trimmed) : undefined;
}

/** Tolerance applies both ways: a timestamp too far in the future is as suspicious as a replay. */
export function isTimestampFresh(
	timestampSeconds: number,
	nowSeconds: number,
	toleranceSeconds: number,
): boolean {
	return Math.abs(nowSeconds - timestampSeconds) <= toleranceSeconds;
}

export function signaturesMatch(expectedHex: string, providedHex: string): boolean {
	const expected = Buffer.from(expectedHex, 'hex');
	const provided = Buffer.from(providedHex, 'hex');
	return expected.length === provided.length && timingSafeEqual(expected, provided);
}

/** The signature is checked before the timestamp: only a signed timestamp is worth trusting. */
export function verifySignature(delivery: SignedDelivery): VerificationResult {
	if (!delivery.signatureHeader) return { valid: false, reason: 'missing_signature' };
	if (!delivery.timestampHeader) return { valid: false, reason: 'missing_timestamp' };

	const providedDigest = parseSignatureHeader(delivery.signatureHeader);
	if (providedDigest === undefined) return { valid: false, reason: 'malformed_signature' };

	const timestampSeconds = parseTimestampHeader(delivery.timestampHeader);
	if (timestampSeconds === undefined) return { valid: false, reason: 'malformed_timestamp' };

	const expectedDigest = computeSignature(
		delivery.signingSecret,
		delivery.timestampHeader.trim(),
		delivery.rawBody,
	);
	if (!signaturesMatch(expectedDigest, providedDigest)) {
		return { valid: false, reason: 'invalid_signature' };
	}

	if (!isTimestampFresh(timestampSeconds, delivery.nowSeconds, delivery.toleranceSeconds)) {
		return { valid: false, reason: 'stale_timestamp' };
	}
	return { valid: true };
}
