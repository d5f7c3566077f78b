import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** retryAfterSeconds: the receiver's Retry-After in whole seconds, when it sent one. */
export type PostResult = { status: number; retryAfterSeconds?: number } | { error: string };

/** One POST, no keep-alive (so close() leaves no socket behind), answer body read and dropped. */
export function postJson(
	url: string,
	body: string,
	headers: Record<string, string>,
	timeoutMs: number,
	signal: AbortSignal,
): Promise<PostResult> {
	return new Promise((resolve) => {
		let target: URL;
		try {
			target = new URL(url);
		} catch {
			resolve({ error: `invalid URL ${url}` });
			return;
		}
		const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
		const request = send(
			target,
			{
				method: 'POST',
				headers: {
					...headers,
					'Content-Length': String(Buffer.byteLength(body)),
					Connection: 'close',
				},
				agent: false,
				signal,
			},
			(response) => {
				response.resume();
				const retryAfter = retryAfterSeconds(response.headers['retry-after']);
				const status = response.statusCode ?? 0;
				response.on('end', () =>
					resolve(
						retryAfter === undefined ? { status } : { status, retryAfterSeconds: retryAfter },
					),
				);
				response.on('error', (error) => resolve({ error: error.message }));
			},
		);
		request.setTimeout(timeoutMs, () =>
			request.destroy(new Error(`no answer within ${timeoutMs} ms`)),
		);
		request.on('error', (error) => resolve({ error: error.message }));
		request.end(body);
	});
}

/** Delta-seconds only, as the trigger and most receivers send it; anything else is ignored. */
function retryAfterSeconds(header: string | undefined): number | undefined {
	return header !== undefined && /^\s*\d+\s*$/.test(header) ? Number(header) : undefined;
}
