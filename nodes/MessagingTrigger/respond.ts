/** The part of a Node/express response we write to, so a bare `http` response works in tests too. */
export interface JsonResponseTarget {
	statusCode: number;
	setHeader(name: string, value: string | number): unknown;
	end(chunk: string): unknown;
}

export function respondWithJson(response: JsonResponseTarget, statusCode: number, body: object): void {
	const payload = JSON.stringify(body);
	response.statusCode = statusCode;
	response.setHeader('Content-Type', 'application/json; charset=utf-8');
	response.setHeader('Content-Length', Buffer.byteLength(payload));
	response.end(payload);
}
