import { AdaptiveSendRateLimiter } from '../../../../nodes/Messaging/throughput/rateLimiter';
import { VirtualClock } from './virtualClock';

async function startTimes(clock: VirtualClock, limiter: AdaptiveSendRateLimiter, callers: number, perCaller: number) {
	const starts: number[] = [];
	const caller = async () => {
		for (let i = 0; i < perCaller; i++) {
			await limiter.acquire();
			starts.push(clock.now());
			await clock.sleep(3);
		}
	};
	await clock.run(Promise.all(Array.from({ length: callers }, caller)));
	return starts.sort((a, b) => a - b);
}

describe('SendRateLimiter', () => {
	it.each([
		[100, 1, 50],
		[100, 8, 10],
		[20, 4, 5],
	])('spaces starts evenly at %i/s across %i concurrent callers', async (perSecond, callers, perCaller) => {
		const clock = new VirtualClock();
		const starts = await startTimes(clock, new AdaptiveSendRateLimiter({ maxPerSecond: perSecond }, clock), callers, perCaller);

		const interval = 1000 / perSecond;
		expect(starts).toHaveLength(callers * perCaller);
		starts.slice(1).forEach((start, i) => {
			expect(start - starts[i]).toBeCloseTo(interval, 6);
		});
		expect(starts[starts.length - 1]).toBeCloseTo((starts.length - 1) * interval, 6);
	});

	it('never lets a burst through after an idle period', async () => {
		const clock = new VirtualClock();
		const limiter = new AdaptiveSendRateLimiter({ maxPerSecond: 10 }, clock);
		await clock.run(limiter.acquire());
		await clock.run(clock.sleep(5_000));

		const starts = await startTimes(clock, limiter, 5, 1);
		starts.slice(1).forEach((start, i) => expect(start - starts[i]).toBeCloseTo(100, 6));
	});

	it('does not wait at all when the limit is 0 (no limit)', async () => {
		const clock = new VirtualClock();
		const starts = await startTimes(clock, new AdaptiveSendRateLimiter({ maxPerSecond: 0 }, clock), 4, 25);
		expect(new Set(starts.map((start) => start % 3))).toEqual(new Set([0]));
		expect(clock.sleeps.filter((ms) => ms !== 3)).toEqual([]);
	});
});
