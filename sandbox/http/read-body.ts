import type { IncomingMessage } from 'node:http';

export const BODY_LIMIT_BYTES = 64 * 1024;

export interface ReadBody {
	text: string;
	tooLarge: boolean;
}

/** Keeps reading past the limit (without keeping the bytes) so the client still gets its 413. */
export function readBody(
	request: IncomingMessage,
	limitBytes = BODY_LIMIT_BYTES,
): Promise<ReadBody> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		request.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size <= limitBytes) chunks.push(chunk);
		});
		request.on('end', () =>
			resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge: size > limitBytes }),
		);
		request.on('error', reject);
		request.on('close', () => {
			if (!request.complete)
				reject(new Error('The client closed the connection before the body was complete'));
		});
	});
}
