import { StartRateMeter } from '../../../../nodes/Messaging/throughput/startRateMeter';

describe('StartRateMeter', () => {
	test('a first burst is not read as thousands per second', () => {
		const meter = new StartRateMeter();
		for (let i = 0; i < 5; i++) meter.recordStart(1000);
		expect(meter.ratePerSecond(1002)).toBe(50);
	});

	test('counts the starts of the last second only', () => {
		const meter = new StartRateMeter();
		for (let at = 0; at < 3000; at += 100) meter.recordStart(at);
		expect(meter.ratePerSecond(2950)).toBe(10);
		expect(meter.ratePerSecond(5000)).toBe(0);
	});
});
