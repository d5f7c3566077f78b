import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { campaignDeliveries, sendAll } from '../../../scripts/bench/events/sender';
import { signPayload } from '../../../sandbox/webhooks/signing';

const SECRET = 'whsec_test_sender';

interface Receiver {
	url: string;
	bodies: string[];
	maxOpen: number;
	close(): Promise<void>;
}

/** Answers `statusFor(attempt)` after `holdMs`; checks every signature; counts requests open at once. */
async function startReceiver(
	statusFor: (attempt: number) => number,
	holdMs = 0,
): Promise<Receiver> {
	const receiver = { bodies: [] as string[], maxOpen: 0 } as Receiver;
	let open = 0;
	const server: Server = createServer((request, response) => {
		open++;
		receiver.maxOpen = Math.max(receiver.maxOpen, open);
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const body = Buffer.concat(chunks).toString('utf8');
			const timestamp = String(request.headers['x-messaging-timestamp']);
			const signed = `v1=${signPayload(SECRET, timestamp, body)}`;
			const status =
				request.headers['x-messaging-signature'] === signed
					? statusFor(receiver.bodies.push(body))
					: 401;
			setTimeout(() => {
				open--;
				response.writeHead(status, status === 503 ? { 'Retry-After': '1' } : {});
				response.end();
			}, holdMs);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
	receiver.close = () => new Promise((resolve) => server.close(() => resolve()));
	return receiver;
}

describe('the events bench sender', () => {
	it('groups a campaign three statuses a message, one event or an array per POST', () => {
		const single = campaignDeliveries('t', 6, 1);
		const batched = campaignDeliveries('t', 250, 100);
		expect(single.map((delivery) => delivery.events[0].status)).toEqual([
			'sent',
			'delivered',
			'read',
			'sent',
			'delivered',
			'read',
		]);
		expect(batched.map((delivery) => delivery.events.length)).toEqual([100, 100, 50]);
	});

	it('keeps at most the open requests it is given, and signs every delivery', async () => {
		const receiver = await startReceiver(() => 200, 30);
		try {
			const deliveries = campaignDeliveries('open', 60, 1);
			const sent = await sendAll({
				url: () => receiver.url,
				deliveries,
				openRequests: 7,
				signingSecret: SECRET,
				deadlineMs: 10_000,
			});
			expect(receiver.maxOpen).toBe(7);
			expect(sent.accepted.size).toBe(60);
			expect(sent.answers.get(200)).toBe(60);
		} finally {
			await receiver.close();
		}
	});

	it('sends again every delivery not answered 2xx until it is, as a provider retries', async () => {
		// Every third attempt refused: each refused delivery comes back after its Retry-After.
		const receiver = await startReceiver((attempt) => (attempt % 3 === 0 ? 503 : 200));
		try {
			const deliveries = campaignDeliveries('retry', 30, 3);
			const sent = await sendAll({
				url: () => receiver.url,
				deliveries,
				openRequests: 4,
				signingSecret: SECRET,
				deadlineMs: 20_000,
			});
			expect(sent.accepted.size).toBe(10);
			expect(sent.attempts).toBe(receiver.bodies.length);
			expect(sent.answers.get(503)).toBeGreaterThan(0);
			expect(sent.answers.get(200)).toBe(10);
			expect(JSON.parse(receiver.bodies[0])).toHaveLength(3);
		} finally {
			await receiver.close();
		}
	});

	it('paces new deliveries at the events per second asked', async () => {
		const receiver = await startReceiver(() => 200);
		try {
			const sent = await sendAll({
				url: () => receiver.url,
				deliveries: campaignDeliveries('pace', 40, 1),
				openRequests: 20,
				eventsPerSecond: 100,
				signingSecret: SECRET,
				deadlineMs: 10_000,
			});
			// 40 events at 100/s: the last leaves 390 ms after the first.
			expect(sent.endedAt - sent.startedAt).toBeGreaterThanOrEqual(390);
			expect(sent.accepted.size).toBe(40);
		} finally {
			await receiver.close();
		}
	});
});
