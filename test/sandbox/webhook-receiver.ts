import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeliveryEvent } from '../../sandbox';

export interface ReceivedDelivery {
	headers: IncomingMessage['headers'];
	rawBody: string;
	/** The body as parsed: for a batched POST (a JSON array) its first event; see `events`. */
	event: DeliveryEvent;
	/** Every event the POST carried: one, or the batch's array. */
	events: DeliveryEvent[];
	/** Date.now() when the body had arrived. */
	receivedAt: number;
}

/** What the receiver does with the n-th delivery (0-based): answer with a status, maybe after a pause. */
export type ReceiverBehaviour = (
	index: number,
	delivery: ReceivedDelivery,
) => { status: number; delayMs?: number; headers?: Record<string, string> };

export interface WebhookReceiver {
	url: string;
	received: ReceivedDelivery[];
	/** How many deliveries the receiver has answered so far (some answer only after a pause). */
	answered(): number;
	/** The most requests the receiver ever held open at once, counted from the first byte to the answer. */
	maxInFlight(): number;
	/** Date.now() of each answer, by delivery index. */
	answeredAt: number[];
	waitFor(count: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
	close(): Promise<void>;
}

export async function startWebhookReceiver(
	behaviour: ReceiverBehaviour = () => ({ status: 200 }),
): Promise<WebhookReceiver> {
	const received: ReceivedDelivery[] = [];
	const pauses = new Set<NodeJS.Timeout>();
	let answered = 0;
	let inFlight = 0;
	let maxInFlight = 0;
	const answeredAt: number[] = [];
	const server = createServer((request, response) => {
		inFlight++;
		maxInFlight = Math.max(maxInFlight, inFlight);
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const rawBody = Buffer.concat(chunks).toString('utf8');
			const body = JSON.parse(rawBody) as DeliveryEvent | DeliveryEvent[];
			const events = Array.isArray(body) ? body : [body];
			const delivery = {
				headers: request.headers,
				rawBody,
				event: events[0],
				events,
				receivedAt: Date.now(),
			};
			const index = received.length;
			const { status, delayMs = 0, headers = {} } = behaviour(index, delivery);
			received.push(delivery);
			const answer = () => {
				answered++;
				inFlight--;
				answeredAt[index] = Date.now();
				response.writeHead(status, headers).end();
			};
			if (delayMs === 0) {
				answer();
				return;
			}
			const pause = setTimeout(() => {
				pauses.delete(pause);
				answer();
			}, delayMs);
			pauses.add(pause);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;

	return {
		url: `http://127.0.0.1:${port}/hooks`,
		received,
		answered: () => answered,
		maxInFlight: () => maxInFlight,
		answeredAt,
		async waitFor(count, timeoutMs = 5000) {
			const deadline = Date.now() + timeoutMs;
			while (received.length < count) {
				if (Date.now() > deadline)
					throw new Error(`expected ${count} deliveries, got ${received.length}`);
				await new Promise((resolve) => setTimeout(resolve, 5));
			}
			return received.slice(0, count);
		},
		close: () =>
			new Promise<void>((resolve) => {
				for (const pause of pauses) clearTimeout(pause);
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

export function pause(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until the condition holds: the sandbox records an attempt only once the receiver's answer is in. */
export async function waitUntil(
	condition: () => boolean,
	description: string,
	timeoutMs = 5000,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting until ${description}`);
		await pause(5);
	}
}
