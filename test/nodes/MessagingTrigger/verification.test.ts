import { createHmac } from 'node:crypto';

import {
	computeSignature,
	isTimestampFresh,
	parseSignatureHeader,
	parseTimestampHeader,
	signaturesMatch,
	verifySignature,
	type SignedDelivery,
} from '../../../nodes/MessagingTrigger/verification';

const SECRET = 'whsec_unit_secret';
const NOW = 1_795_000_000;
const BODY = Buffer.from('{"event_id":"evt_1","channel":"sms","status":"delivered"}');

function independentSignature(secret: string, timestamp: string, body: Buffer): string {
	return createHmac('sha256', secret)
		.update(`${timestamp}.${body.toString('utf8')}`)
		.digest('hex');
}

function delivery(overrides: Partial<SignedDelivery> = {}): SignedDelivery {
	const timestamp = String(NOW);
	return {
		signingSecret: SECRET,
		timestampHeader: timestamp,
		signatureHeader: `v1=${independentSignature(SECRET, timestamp, BODY)}`,
		rawBody: BODY,
		nowSeconds: NOW,
		toleranceSeconds: 300,
		...overrides,
	};
}

describe('computeSignature', () => {
	it('is the hex HMAC-SHA256 of "<timestamp>.<raw body>"', () => {
		expect(computeSignature(SECRET, '1700000000', BODY)).toBe(
			independentSignature(SECRET, '1700000000', BODY),
		);
	});

	it('signs the raw bytes, so re-serialised JSON does not match', () => {
		const reformatted = Buffer.from(JSON.stringify(JSON.parse(BODY.toString()), null, 2));
		expect(computeSignature(SECRET, '1', reformatted)).not.toBe(
			computeSignature(SECRET, '1', BODY),
		);
	});

	it('handles multi-byte UTF-8 bodies byte for byte', () => {
		const body = Buffer.from('{"text":"नमस्ते ✓"}');
		expect(computeSignature(SECRET, '5', body)).toBe(independentSignature(SECRET, '5', body));
	});
});

describe('parseSignatureHeader', () => {
	const digest = 'ab'.repeat(32);

	it('returns the lower-case digest of a v1 header', () => {
		expect(parseSignatureHeader(`v1=${digest.toUpperCase()}`)).toBe(digest);
	});

	it.each([
		['no prefix', digest],
		['another version', `v2=${digest}`],
		['a short digest', `v1=${digest.slice(2)}`],
		['a long digest', `v1=${digest}00`],
		['non-hex characters', `v1=${digest.slice(1)}g`],
		['an empty value', 'v1='],
		['several signatures', `v1=${digest},v1=${digest}`],
	])('rejects %s', (_case, header) => {
		expect(parseSignatureHeader(header)).toBeUndefined();
	});
});

describe('parseTimestampHeader', () => {
	it('reads Unix seconds', () => {
		expect(parseTimestampHeader('1795000000')).toBe(1_795_000_000);
	});

	it.each(['', 'abc', '-5', '1.5', '2026-11-22T13:00:00Z', '1e9', '1795000000000000'])(
		'rejects %p',
		(header) => {
			expect(parseTimestampHeader(header)).toBeUndefined();
		},
	);
});

describe('isTimestampFresh', () => {
	it.each([
		[NOW, true],
		[NOW - 300, true],
		[NOW + 300, true],
		[NOW - 301, false],
		[NOW + 301, false],
	])('timestamp %d against now with 300 s tolerance is fresh: %p', (timestamp, fresh) => {
		expect(isTimestampFresh(timestamp, NOW, 300)).toBe(fresh);
	});
});

describe('signaturesMatch', () => {
	it('compares digests of different lengths as unequal instead of throwing', () => {
		expect(signaturesMatch('ab'.repeat(32), 'ab'.repeat(31))).toBe(false);
	});

	it('is true only for the same digest', () => {
		expect(signaturesMatch('ab'.repeat(32), 'ab'.repeat(32))).toBe(true);
		expect(signaturesMatch('ab'.repeat(32), `${'ab'.repeat(31)}ac`)).toBe(false);
	});
});

describe('verifySignature', () => {
	it('accepts a delivery signed with the secret', () => {
		expect(verifySignature(delivery())).toEqual({ valid: true });
	});

	it.each<[string, Partial<SignedDelivery>, string]>([
		['no signature header', { signatureHeader: undefined }, 'missing_signature'],
		['no timestamp header', { timestampHeader: undefined }, 'missing_timestamp'],
		['a malformed signature header', { signatureHeader: 'sha256=abc' }, 'malformed_signature'],
		['a malformed timestamp', { timestampHeader: 'yesterday' }, 'malformed_timestamp'],
		['another secret', { signingSecret: 'whsec_other' }, 'invalid_signature'],
		[
			'a changed body',
			{ rawBody: Buffer.from(BODY.toString().replace('sms', 'whatsapp')) },
			'invalid_signature',
		],
		['a stale timestamp', { nowSeconds: NOW + 301 }, 'stale_timestamp'],
		['a future timestamp', { nowSeconds: NOW - 301 }, 'stale_timestamp'],
	])('refuses %s', (_case, overrides, reason) => {
		expect(verifySignature(delivery(overrides))).toEqual({ valid: false, reason });
	});

	it('refuses a signature moved to another timestamp, so the timestamp cannot be refreshed', () => {
		const fresh = delivery({ timestampHeader: String(NOW + 1000), nowSeconds: NOW + 1000 });
		expect(verifySignature(fresh)).toEqual({ valid: false, reason: 'invalid_signature' });
	});
});
