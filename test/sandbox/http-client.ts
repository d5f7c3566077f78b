import type { Sandbox } from '../../sandbox';

export const ENTITY_ID = '1201159876543210123';
export const ORDER_SHIPPED_TEMPLATE_ID = '1207161111111111111';
export const OTP_TEMPLATE_ID = '1207162222222222222';
export const OPEN_SESSION_NUMBER = '+919812345678';

export type Encoding = 'form' | 'json';

export interface PostOptions {
	encoding?: Encoding;
	apiKey?: string | null;
	headers?: Record<string, string>;
}

export interface ApiReply {
	status: number;
	headers: Headers;
	body: unknown;
}

/** Object fields go as JSON-encoded text, the way the node sends them. */
export function encodeFields(
	fields: Record<string, unknown>,
	encoding: Encoding,
): { body: string; contentType: string } {
	const asText = Object.fromEntries(
		Object.entries(fields).map(([name, value]) => [
			name,
			typeof value === 'object' ? JSON.stringify(value) : String(value),
		]),
	);
	if (encoding === 'json') return { body: JSON.stringify(asText), contentType: 'application/json' };
	return {
		body: new URLSearchParams(asText).toString(),
		contentType: 'application/x-www-form-urlencoded',
	};
}

export async function post(
	sandbox: Sandbox,
	path: string,
	fields: Record<string, unknown>,
	options: PostOptions = {},
): Promise<ApiReply> {
	const { body, contentType } = encodeFields(fields, options.encoding ?? 'form');
	const apiKey = options.apiKey === undefined ? sandbox.apiKey : options.apiKey;
	return postRaw(sandbox, path, body, {
		'Content-Type': contentType,
		...(apiKey === null ? {} : { Authorization: `Bearer ${apiKey}` }),
		...options.headers,
	});
}

export async function postRaw(
	sandbox: Sandbox,
	path: string,
	body: string,
	headers: Record<string, string>,
): Promise<ApiReply> {
	const response = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers, body });
	const text = await response.text();
	let parsed: unknown = text;
	try {
		parsed = JSON.parse(text);
	} catch {
		// not JSON: the test sees the text
	}
	return { status: response.status, headers: response.headers, body: parsed };
}

export function smsFields(overrides: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		to: '+919812345678',
		entity_id: ENTITY_ID,
		template_id: ORDER_SHIPPED_TEMPLATE_ID,
		content: { customer_name: 'Asha', order_id: '1234', eta: '24 Nov' },
		...overrides,
	};
}

export function whatsappTemplateFields(
	overrides: Record<string, unknown> = {},
): Record<string, unknown> {
	return {
		to: '+919812345678',
		type: 'template',
		template_name: 'order_update',
		components: {
			header: { '1': 'Order 1234' },
			body: { '1': 'Asha', '2': '24 Nov' },
			buttons: { '1': 'track-1234' },
		},
		...overrides,
	};
}

export function errorOf(reply: ApiReply): { code: string; message: string; field?: string } {
	return (reply.body as { error: { code: string; message: string; field?: string } }).error;
}
