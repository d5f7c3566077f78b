import { randomBytes } from 'node:crypto';

const CROCKFORD_BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** ULID-style: 10 characters of time then 16 random ones, so ids sort by creation. */
function ulid(nowMs: number): string {
	let time = '';
	let remaining = Math.floor(nowMs);
	for (let i = 0; i < 10; i++) {
		time = CROCKFORD_BASE32[remaining % 32] + time;
		remaining = Math.floor(remaining / 32);
	}
	const random = Array.from(randomBytes(16), (byte) => CROCKFORD_BASE32[byte % 32]).join('');
	return time + random;
}

export function newMessageId(nowMs: number): string {
	return `msg_${ulid(nowMs)}`;
}

export function newEventId(nowMs: number): string {
	return `evt_${ulid(nowMs)}`;
}

export function newCampaignId(nowMs: number): string {
	return `cmp_${ulid(nowMs)}`;
}
