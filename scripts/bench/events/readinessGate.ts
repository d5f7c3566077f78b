import http from 'node:http';
import type { AddressInfo } from 'node:net';

const POLL_EVERY_MS = 100;

export interface ReadinessGate {
	/** Where the sender posts instead of n8n's own origin. */
	origin: string;
	/** Requests answered 503 because n8n's last readiness check had not answered 200. */
	turnedAway: () => number;
	stop: () => Promise<void>;
}

/**
 * What a load balancer's health check or a Kubernetes readiness probe does in front of n8n: a request reaches n8n only
 * while its last `GET /healthz/readiness` (every 100 ms) answered 200, else it gets 503 with `Retry-After: 1`. A
 * starting n8n 2.40.7 answers every request `200 n8n is starting up. Please wait` itself, so a provider posting to it
 * directly loses those deliveries; behind the gate they are refused and sent again.
 */
export async function startReadinessGate(n8nOrigin: string): Promise<ReadinessGate> {
	const upstream = new URL(n8nOrigin);
	let ready = false;
	let polling = true;
	let turnedAway = 0;
	const poll = async () => {
		while (polling) {
			try {
				const answer = await fetch(`${n8nOrigin}/healthz/readiness`, {
					signal: AbortSignal.timeout(1_000),
				});
				await answer.arrayBuffer();
				ready = answer.status === 200;
			} catch {
				ready = false;
			}
			await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
		}
	};
	void poll();
	const server = http.createServer((request, response) => {
		if (!ready) {
			turnedAway++;
			response.writeHead(503, { 'retry-after': '1', 'content-type': 'text/plain' });
			response.end('n8n is not ready');
			return;
		}
		const forwarded = http.request(
			{
				host: upstream.hostname,
				port: upstream.port,
				path: request.url,
				method: request.method,
				headers: request.headers,
			},
			(answer) => {
				response.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(response);
			},
		);
		forwarded.on('error', () => response.destroy());
		// A sender that hangs up hangs up on n8n too, as it would without the gate.
		response.on('close', () => {
			if (!response.writableFinished) forwarded.destroy();
		});
		request.pipe(forwarded);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		origin: `http://127.0.0.1:${port}`,
		turnedAway: () => turnedAway,
		stop: async () => {
			polling = false;
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}
