import { openWindow, readWindow } from '../../../../nodes/Messaging/throughput/roundTripWindow';

describe('readWindow', () => {
	test('reads the requests started with the pool full when they are at least half the window', () => {
		const window = openWindow(0, 10);
		// The first four started while the pool filled after a step up and met a shorter queue.
		window.latencies.push(100, 100, 100, 100, 190, 200, 200, 210, 220, 230);
		window.loadedLatencies.push(190, 200, 200, 210, 220, 230);
		const reading = readWindow(window, 10);

		expect(reading.lucky).toBe(190);
		expect(reading.median).toBe(200);
		expect(reading.rate).toBeCloseTo(10 / 200);
		expect(reading.filled).toBe(true);
	});

	test('falls back to every request when too few started with the pool full', () => {
		const window = openWindow(0, 4);
		window.latencies.push(100, 110, 120, 130, 140, 150, 160, 170, 180, 190);
		window.loadedLatencies.push(190);
		const reading = readWindow(window, 10);

		expect(reading.lucky).toBe(100);
		expect(reading.median).toBe(140);
		// Never more than 4 in flight at a limit of 10: it says nothing about a higher one.
		expect(reading.filled).toBe(false);
	});
});
