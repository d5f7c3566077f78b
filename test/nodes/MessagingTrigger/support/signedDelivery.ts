import { createHmac } from 'node:crypto';
import type { InboundEvent } from '../../../../sandbox';

/** Signs like the Messaging API does, written independently of the node's own helper. */
export function sign(secret: string, timestamp: number | string, body: string | Buffer): string {
	const hmac = createHmac('sha256', secret);
	hmac.update(Buffer.concat([Buffer.from(`${timestamp}.`), Buffer.from(body)]));
	return `v1=${hmac.digest('hex')}`;
}

export function nowSeconds(): number {
	return Math.floor(Date.now() / 1000);
}

export interface DeliveryEventFixture {
	event_id: string;
	type: string;
	message_id: string;
	channel: string;
	status: string;
	timestamp: string;
	recipient: string;
	error: { code: string; message: string } | null;
}

let eventSequence = 0;

export function deliveryEvent(overrides: Partial<DeliveryEventFixture> = {}): DeliveryEventFixture {
	eventSequence++;
	return {
		event_id: `evt_test_${eventSequence}_${Date.now()}`,
		type: 'message.status',
		message_id: `msg_test_${eventSequence}`,
		channel: 'sms',
		status: 'delivered',
		timestamp: new Date().toISOString(),
		recipient: '+919812345678',
		error: null,
		...overrides,
	};
}

/** An inbound event exactly as the sandbox (the API) sends it. */
export type InboundEventFixture = InboundEvent;

/** A text a WhatsApp user wrote to the business number, as the API sends it. */
export function inboundEvent(overrides: Partial<InboundEventFixture> = {}): InboundEventFixture {
	eventSequence++;
	return {
		event_id: `evt_inbound_${eventSequence}_${Date.now()}`,
		type: 'message.inbound',
		message_id: `msg_inbound_${eventSequence}`,
		channel: 'whatsapp',
		from: '+919812345678',
		to: '+918000012345',
		timestamp: new Date().toISOString(),
		message_type: 'text',
		text: 'Hi, where is my order?',
		...overrides,
	};
}

export interface PostOptions {
	secret?: string;
	timestamp?: number | string;
	headers?: Record<string, string>;
	omitHeaders?: string[];
	contentType?: string;
	signedBody?: string;
}

export interface PostResult {
	status: number;
	body: unknown;
}

/** POSTs a body the way the provider would: JSON, signed over `<timestamp>.<raw body>`. */
export async function postDelivery(
	url: string,
	body: string,
	options: PostOptions = {},
): Promise<PostResult> {
	const timestamp = options.timestamp ?? nowSeconds();
	const headers: Record<string, string> = {
		'content-type': options.contentType ?? 'application/json',
		'x-messaging-timestamp': String(timestamp),
		'x-messaging-signature': sign(
			options.secret ?? 'unused',
			timestamp,
			options.signedBody ?? body,
		),
		...options.headers,
	};
	for (const name of options.omitHeaders ?? []) delete headers[name];
	const response = await fetch(url, { method: 'POST', headers, body });
	const text = await response.text();
	let parsed: unknown = text;
	try {
		parsed = JSON.parse(text);
	} catch {
		// plain-text answers stay as text
	}
	return { status: response.status, body: parsed };
}
