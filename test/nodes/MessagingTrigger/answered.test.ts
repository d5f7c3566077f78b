import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { whenAnswered } from '../../../nodes/MessagingTrigger/answered';

/** One request to a server whose handler gets the response; resolves with what whenAnswered reported. */
async function answeredWith(
	handle: (response: ServerResponse, hangUp: () => void) => void,
): Promise<boolean> {
	let reported!: Promise<boolean>;
	const abort = new AbortController();
	const server = createServer((_request, response) => {
		reported = whenAnswered(response);
		handle(response, () => abort.abort());
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', signal: abort.signal })
		.then((response) => response.text())
		.catch(() => undefined);
	const result = await reported;
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
	return result;
}

describe('whenAnswered', () => {
	it('reports true once n8n answered 2xx', async () => {
		expect(await answeredWith((response) => response.writeHead(200).end('{}'))).toBe(true);
	});

	it('reports false once n8n answered 500 (it could not create the execution)', async () => {
		expect(await answeredWith((response) => response.writeHead(500).end('{}'))).toBe(false);
	});

	it('waits for the status n8n writes after the sender hung up', async () => {
		const result = await answeredWith((response, hangUp) => {
			hangUp();
			setTimeout(() => response.writeHead(200).end('{}'), 300);
		});
		expect(result).toBe(true);
	});

	it('reads the status of an answer ended after the sender hung up without writeHead, as express sends JSON', async () => {
		const answers = await Promise.all(
			[200, 500].map((statusCode) =>
				answeredWith((response, hangUp) => {
					hangUp();
					setTimeout(() => {
						response.statusCode = statusCode;
						response.setHeader('Content-Type', 'application/json');
						response.end('{}');
					}, 300);
				}),
			),
		);
		expect(answers).toEqual([true, false]);
	});

	it('reports false when n8n wrote a failure after the sender hung up', async () => {
		const result = await answeredWith((response, hangUp) => {
			hangUp();
			setTimeout(() => response.writeHead(500).end('{}'), 300);
		});
		expect(result).toBe(false);
	});
});
