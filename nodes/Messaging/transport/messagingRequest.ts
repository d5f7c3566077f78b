import type { IDataObject } from 'n8n-workflow';

/** One send, as the API receives it: named fields, object fields already JSON-encoded text (README: API assumptions). */
export interface MessagingRequest {
	path: '/v1/sms/send' | '/v1/whatsapp/send';
	fields: Record<string, string>;
}

export type BodyEncoding = 'form' | 'json';

export interface SendSettings {
	bodyEncoding: BodyEncoding;
	timeoutMs: number;
	idempotencyKey?: string;
	/** Sent as Idempotency-Key when the user set none; a provider that ignores it is not trusted to retry. */
	automaticIdempotencyKey?: string;
}

export interface Acknowledgement extends IDataObject {
	message_id: string;
	status: string;
	channel: string;
}
