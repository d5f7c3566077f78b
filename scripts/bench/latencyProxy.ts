import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the provider in front of the sandbox answers: its latency, and past how many in flight it queues. */
export interface ProviderShape {
	latencyMs: number;
	jitterMs: number;
	/** Past this many requests in flight, latency × (in flight ÷ knee): a provider pushed into overload. */
	kneeInFlight?: number;
}

export interface ProxiedRequest {
	/** The message's order_id, `<runTag>-<row>`: which case and which row sent it. */
	orderId: string;
	tag: string;
	receivedAt: number;
	latencyMs: number;
	status: number;
}

export interface LatencyProxy {
	url: string;
	shape(shape: ProviderShape): void;
	records(): ProxiedRequest[];
	clear(): void;
	stop(): Promise<void>;
}

/** `order_id`, in the form or JSON body the senders post. */
function orderIdOf(body: string): string {
	const fields = body.trimStart().startsWith('{')
		? (JSON.parse(body) as Record<string, unknown>)
		: Object.fromEntries(new URLSearchParams(body));
	const content = fields.content;
	const parsed = (typeof content === 'string' ? JSON.parse(content) : content) as {
		order_id?: string;
	};
	return parsed?.order_id ?? '';
}

async function readBody(request: http.IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString('utf8');
}

const HOP_BY_HOP = new Set([
	'host',
	'connection',
	'content-length',
	'transfer-encoding',
	'keep-alive',
]);

/**
 * A provider's latency, in front of the sandbox: every request waits out the shape's latency (grown by the
 * queue past the knee), then the sandbox answers it (its token bucket, its acknowledgement), and the answer is
 * passed back unchanged. What each request took is recorded under the case that sent it.
 */
export async function startLatencyProxy(sandboxUrl: string): Promise<LatencyProxy> {
	let current: ProviderShape = { latencyMs: 0, jitterMs: 0 };
	let records: ProxiedRequest[] = [];
	let inFlight = 0;
	const server = http.createServer((request, response) => {
		const receivedAt = Date.now();
		inFlight++;
		const queueing = current.kneeInFlight ? Math.max(1, inFlight / current.kneeInFlight) : 1;
		const delayMs = (current.latencyMs + Math.random() * current.jitterMs) * queueing;
		void (async () => {
			const body = await readBody(request);
			await new Promise((resolve) => setTimeout(resolve, delayMs));
			const headers = Object.fromEntries(
				Object.entries(request.headers).filter(
					(entry): entry is [string, string] =>
						typeof entry[1] === 'string' && !HOP_BY_HOP.has(entry[0]),
				),
			);
			const answer = await fetch(`${sandboxUrl}${request.url ?? '/'}`, {
				method: request.method,
				headers,
				body: request.method === 'GET' ? undefined : body,
			});
			const text = await answer.text();
			inFlight--;
			const orderId = orderIdOf(body);
			records.push({
				orderId,
				tag: orderId.slice(0, orderId.lastIndexOf('-')),
				receivedAt,
				latencyMs: Date.now() - receivedAt,
				status: answer.status,
			});
			answer.headers.forEach((value, name) => {
				if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') response.setHeader(name, value);
			});
			response.writeHead(answer.status).end(text);
		})().catch((error: unknown) => {
			inFlight--;
			response.writeHead(502).end(String(error));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		shape: (shape) => {
			current = shape;
		},
		records: () => records,
		clear: () => {
			records = [];
		},
		stop: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
