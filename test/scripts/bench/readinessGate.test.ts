import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { startReadinessGate } from '../../../scripts/bench/events/readinessGate';

/** A stand-in n8n: `/healthz/readiness` answers as `state.ready` says; any other path echoes the body with 200. */
async function startN8nDouble(state: {
	ready: boolean;
}): Promise<{ origin: string; close: () => Promise<void> }> {
	const server: Server = createServer((request, response) => {
		if (request.url === '/healthz/readiness') {
			response.writeHead(state.ready ? 200 : 503);
			response.end();
			return;
		}
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			response.writeHead(200, { 'content-type': 'text/plain' });
			response.end(`${request.url} ${Buffer.concat(chunks).toString('utf8')}`);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		origin: `http://127.0.0.1:${port}`,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

const settle = async () => await new Promise((resolve) => setTimeout(resolve, 300));

test('the readiness check refuses with 503 while n8n is not ready, and forwards once it is', async () => {
	const state = { ready: false };
	const n8n = await startN8nDouble(state);
	const gate = await startReadinessGate(n8n.origin);
	try {
		await settle();
		const refused = await fetch(`${gate.origin}/webhook/events`, { method: 'POST', body: 'a' });
		expect(refused.status).toBe(503);
		expect(refused.headers.get('retry-after')).toBe('1');
		expect(gate.turnedAway()).toBe(1);

		state.ready = true;
		await settle();
		const forwarded = await fetch(`${gate.origin}/webhook/events`, { method: 'POST', body: 'b' });
		expect(forwarded.status).toBe(200);
		expect(await forwarded.text()).toBe('/webhook/events b');

		state.ready = false;
		await settle();
		expect(
			(await fetch(`${gate.origin}/webhook/events`, { method: 'POST', body: 'c' })).status,
		).toBe(503);
		expect(gate.turnedAway()).toBe(2);
	} finally {
		await gate.stop();
		await n8n.close();
	}
});
