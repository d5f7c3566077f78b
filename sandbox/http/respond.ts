import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

export interface HttpAnswer {
	status: number;
	headers: Record<string, string>;
	/** Exactly the bytes sent. */
	text: string;
	/** What the request log keeps: the parsed JSON, or the text when it is not JSON. */
	recordedBody: unknown;
}

export function jsonAnswer(
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): HttpAnswer {
	return {
		status,
		headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
		text: JSON.stringify(body),
		recordedBody: body,
	};
}

export function writeAnswer(response: ServerResponse, answer: HttpAnswer): void {
	if (response.destroyed) return;
	response.writeHead(answer.status, {
		...answer.headers,
		'Content-Length': String(Buffer.byteLength(answer.text)),
	});
	response.end(answer.text);
}

export function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
	const flat: Record<string, string> = {};
	for (const [name, value] of Object.entries(headers)) {
		if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
	}
	return flat;
}
