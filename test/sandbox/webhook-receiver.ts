import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeliveryEvent } from '../../sandbox';

export interface ReceivedDelivery {
	headers: IncomingMessage['headers'];
	rawBody: string;
	event: DeliveryEvent;
}

/** What the receiver does with the n-th delivery (0-based): answer with a status, maybe after a pause. */
export type ReceiverBehaviour = (
	index: number,
	delivery: ReceivedDelivery,
) => { status: number; delayMs?: number };

export interface WebhookReceiver {
	url: string;
	received: ReceivedDelivery[];
	/** How many deliveries the receiver has answered so far (some answer only after a pause). */
	answered(): number;
	waitFor(count: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
	close(): Promise<void>;
}

export async function startWebhookReceiver(
	behaviour: ReceiverBehaviour = () => ({ status: 200 }),
): Promise<WebhookReceiver> {
	const received: ReceivedDelivery[] = [];
	const pauses = new Set<NodeJS.Timeout>();
	let answered = 0;
	const server = createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const rawBody = Buffer.concat(chunks).toString('utf8');
			const delivery = {
				headers: request.headers,
				rawBody,
				event: JSON.parse(rawBody) as DeliveryEvent,
			};
			const { status, delayMs = 0 } = behaviour(received.length, delivery);
			received.push(delivery);
			const answer = () => {
				answered++;
				response.writeHead(status).end();
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
