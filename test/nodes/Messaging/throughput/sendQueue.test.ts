import { SendQueue, type Waiter } from '../../../../nodes/Messaging/throughput/sendQueue';

function waiter(name: string, log: string[]): Waiter {
	return { resolve: () => log.push(name), reject: () => log.push(`${name} rejected`) };
}

describe('SendQueue', () => {
	test('retries go before first tries, each kind in arrival order', () => {
		const queue = new SendQueue();
		const log: string[] = [];
		queue.add('first', waiter('first 1', log));
		queue.add('retry', waiter('retry 1', log));
		queue.add('first', waiter('first 2', log));
		queue.add('retry', waiter('retry 2', log));
		expect(queue.isEmpty).toBe(false);
		for (let next = queue.next(); next; next = queue.next()) next.resolve(0);
		expect(log).toEqual(['retry 1', 'retry 2', 'first 1', 'first 2']);
		expect(queue.isEmpty).toBe(true);
	});
});
