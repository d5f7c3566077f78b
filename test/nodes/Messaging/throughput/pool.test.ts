import { forEachWithConcurrency } from '../../../../nodes/Messaging/throughput/pool';
import { VirtualClock } from './virtualClock';

describe('forEachWithConcurrency', () => {
	it.each([
		[10, 1],
		[10, 3],
		[10, 8],
		[3, 8],
	])(
		'processes %i items exactly once with at most %i in flight, starting in index order',
		async (count, limit) => {
			const clock = new VirtualClock();
			let inFlight = 0;
			let peak = 0;
			const started: number[] = [];
			const finished: number[] = [];

			await clock.run(
				forEachWithConcurrency(count, limit, async (index) => {
					started.push(index);
					inFlight++;
					peak = Math.max(peak, inFlight);
					await clock.sleep(10 + ((index * 7) % 5));
					inFlight--;
					finished.push(index);
				}),
			);

			expect(started).toEqual(Array.from({ length: count }, (_, i) => i));
			expect([...finished].sort((a, b) => a - b)).toEqual(started);
			expect(peak).toBe(Math.min(limit, count));
		},
	);

	it('does nothing for zero items and treats a concurrency below 1 as 1', async () => {
		const seen: number[] = [];
		await forEachWithConcurrency(0, 4, async (index) => {
			seen.push(index);
		});
		expect(seen).toEqual([]);

		let peak = 0;
		let inFlight = 0;
		const clock = new VirtualClock();
		await clock.run(
			forEachWithConcurrency(3, 0, async (index) => {
				inFlight++;
				peak = Math.max(peak, inFlight);
				await clock.sleep(5);
				inFlight--;
				seen.push(index);
			}),
		);
		expect(seen).toEqual([0, 1, 2]);
		expect(peak).toBe(1);
	});

	it('starts nothing new once shouldContinue answers false, but lets in-flight items finish', async () => {
		const clock = new VirtualClock();
		const finished: number[] = [];
		let stop = false;

		await clock.run(
			forEachWithConcurrency(
				20,
				3,
				async (index) => {
					await clock.sleep(index === 1 ? 5 : 10);
					if (index === 1) stop = true;
					finished.push(index);
				},
				() => !stop,
			),
		);

		expect([...finished].sort((a, b) => a - b)).toEqual([0, 1, 2]);
	});

	it('rethrows the first error only after in-flight items settled, and starts no new item', async () => {
		const clock = new VirtualClock();
		const finished: number[] = [];

		const run = forEachWithConcurrency(10, 3, async (index) => {
			await clock.sleep(index === 0 ? 5 : 20);
			if (index === 0) throw new Error('item 0 failed');
			finished.push(index);
		});

		await expect(clock.run(run)).rejects.toThrow('item 0 failed');
		expect([...finished].sort((a, b) => a - b)).toEqual([1, 2]);
	});
});
