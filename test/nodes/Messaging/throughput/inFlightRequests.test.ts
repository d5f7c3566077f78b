import { InFlightRequests } from '../../../../nodes/Messaging/throughput/inFlightRequests';

describe('InFlightRequests', () => {
	test('counts what is on the wire', () => {
		const inFlight = new InFlightRequests();
		inFlight.started();
		inFlight.started();
		inFlight.finished();
		expect(inFlight.count).toBe(1);
	});

	test('wakes every waiter when the next request settles, and only then', async () => {
		const inFlight = new InFlightRequests();
		inFlight.started();
		const woken: string[] = [];
		const first = inFlight.nextSettled().then(() => woken.push('first'));
		const second = inFlight.nextSettled().then(() => woken.push('second'));
		await Promise.resolve();
		expect(woken).toEqual([]);
		inFlight.finished();
		await Promise.all([first, second]);
		expect(woken).toEqual(['first', 'second']);

		let later = false;
		void inFlight.nextSettled().then(() => (later = true));
		await Promise.resolve();
		expect(later).toBe(false);
	});
});
