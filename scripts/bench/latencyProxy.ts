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

async function readBody(request: http.IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

const HOP_BY_HOP = new Set([
	'host',
	'connection',
	'content-length',
	'transfer-encoding',
	'keep-alive',
]);

interface Answer {
	status: number;
	headers: http.IncomingHttpHeaders;
	body: Buffer;
}

/**
 * One request to the sandbox over a kept-alive connection. `fetch` cost this process half a core at 1,000
 * requests/s, on the two cores n8n runs on: the provider double then took CPU from the node it measured.
 */
function forward(
	agent: http.Agent,
	target: URL,
	request: http.IncomingMessage,
	body: Buffer,
	retried = false,
): Promise<Answer> {
	const headers: http.OutgoingHttpHeaders = {};
	for (const [name, value] of Object.entries(request.headers))
		if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
	if (request.method !== 'GET') headers['content-length'] = body.length;
	return new Promise((resolve, reject) => {
		const outgoing = http.request(
			{
				agent,
				host: target.hostname,
				port: target.port,
				method: request.method,
				path: request.url,
				headers,
			},
			(answer) => {
				const chunks: Buffer[] = [];
				answer.on('data', (chunk: Buffer) => chunks.push(chunk));
				answer.on('end', () =>
					resolve({
						status: answer.statusCode ?? 502,
						headers: answer.headers,
						body: Buffer.concat(chunks),
					}),
				);
				answer.on('error', reject);
			},
		);
		outgoing.on('error', (error: NodeJS.ErrnoException) => {
			// The sandbox may close an idle connection just as it is reused; Node's documented remedy is one retry.
			if (!retried && outgoing.reusedSocket && error.code === 'ECONNRESET')
				forward(agent, target, request, body, true).then(resolve, reject);
			else reject(error);
		});
		outgoing.end(request.method === 'GET' ? undefined : body);
	});
}

/**
 * A provider's latency, in front of the sandbox: every request waits out the shape's latency (grown by the
 * queue past the knee), then the sandbox answers it (its token bucket, its acknowledgement), and the answer is
 * passed back unchanged. What each request took is recorded under the case that sent it.
 */
export async function startLatencyProxy(sandboxUrl: string): Promise<LatencyProxy> {
	let current: ProviderShape = { latencyMs: 0, jitterMs: 0 };
	let records: ProxiedRequest[] = [];
	let inFlight = 0;
	const target = new URL(sandboxUrl);
	const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
	const server = http.createServer((request, response) => {
		const receivedAt = Date.now();
		inFlight++;
		const queueing = current.kneeInFlight ? Math.max(1, inFlight / current.kneeInFlight) : 1;
		const delayMs = (current.latencyMs + Math.random() * current.jitterMs) * queueing;
		void (async () => {
			const body = await readBody(request);
			await new Promise((resolve) => setTimeout(resolve, delayMs));
			const answer = await forward(agent, target, request, body);
			inFlight--;
			const orderId = orderIdOf(body.toString('utf8'));
			records.push({
				orderId,
				tag: orderId.slice(0, orderId.lastIndexOf('-')),
				receivedAt,
				latencyMs: Date.now() - receivedAt,
				status: answer.status,
			});
			for (const [name, value] of Object.entries(answer.headers))
				if (value !== undefined && !HOP_BY_HOP.has(name)) response.setHeader(name, value);
			response.writeHead(answer.status).end(answer.body);
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
			agent.destroy();
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
