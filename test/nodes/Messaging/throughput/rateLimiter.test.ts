import { AdaptiveSendRateLimiter } from '../../../../nodes/Messaging/throughput/rateLimiter';
import { SimulatedProvider, runCampaign } from './simulatedProvider';
import { VirtualClock } from './virtualClock';

async function startTimes(
	clock: VirtualClock,
	limiter: AdaptiveSendRateLimiter,
	callers: number,
	perCaller: number,
) {
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

describe('AdaptiveSendRateLimiter before any 429: a smooth limiter', () => {
	it.each([
		[100, 1, 50],
		[100, 8, 10],
		[20, 4, 5],
	])(
		'spaces starts evenly at %i/s across %i concurrent callers',
		async (perSecond, callers, perCaller) => {
			const clock = new VirtualClock();
			const starts = await startTimes(
				clock,
				new AdaptiveSendRateLimiter({ maxPerSecond: perSecond }, clock),
				callers,
				perCaller,
			);

			const interval = 1000 / perSecond;
			expect(starts).toHaveLength(callers * perCaller);
			starts.slice(1).forEach((start, i) => {
				expect(start - starts[i]).toBeCloseTo(interval, 6);
			});
			expect(starts[starts.length - 1]).toBeCloseTo((starts.length - 1) * interval, 6);
		},
	);

	it('never lets a burst through after an idle period', async () => {
		const clock = new VirtualClock();
		const limiter = new AdaptiveSendRateLimiter({ maxPerSecond: 10 }, clock);
		await clock.run(limiter.acquire());
		await clock.run(clock.sleep(5_000));

		const starts = await startTimes(clock, limiter, 5, 1);
		expect(starts).toHaveLength(5);
		starts.slice(1).forEach((start, i) => expect(start - starts[i]).toBeCloseTo(100, 6));
	});

	it('does not wait at all when the limit is 0 (no limit)', async () => {
		const clock = new VirtualClock();
		const starts = await startTimes(
			clock,
			new AdaptiveSendRateLimiter({ maxPerSecond: 0 }, clock),
			4,
			25,
		);
		expect(new Set(starts.map((start) => start % 3))).toEqual(new Set([0]));
		expect(clock.sleeps.filter((ms) => ms !== 3)).toEqual([]);
	});
});

/** One caller let go every `everyMs` until `untilMs`, so it achieved exactly 1000 / everyMs per second; returns its last start. */
async function sendSteadily(
	clock: VirtualClock,
	limiter: AdaptiveSendRateLimiter,
	everyMs: number,
	untilMs: number,
) {
	let lastStartedAt = 0;
	await clock.run(
		(async () => {
			for (;;) {
				lastStartedAt = await limiter.acquire();
				if (clock.now() + everyMs > untilMs) break;
				await clock.sleep(everyMs);
			}
		})(),
	);
	return lastStartedAt;
}

describe('AdaptiveSendRateLimiter after a 429', () => {
	it('drops below the rate that was being achieved, then spaces sends at the lower rate', async () => {
		const clock = new VirtualClock();
		const limiter = new AdaptiveSendRateLimiter({ maxPerSecond: 0 }, clock);
		expect(limiter.rateAt(clock.now())).toBe(Number.POSITIVE_INFINITY);

		const startedAt = await sendSteadily(clock, limiter, 10, 1500);
		limiter.recordThrottled(startedAt);

		expect(limiter.rateAt(clock.now())).toBeCloseTo(70, 6);
		const starts = await startTimes(clock, limiter, 3, 4);
		expect(starts).toHaveLength(3 * 4);
		starts.slice(1).forEach((start, i) => {
			expect(start - starts[i]).toBeGreaterThan(1000 / 75);
			expect(start - starts[i]).toBeLessThanOrEqual(1000 / 70);
		});
	});

	it('decreases from what the node achieved, not from a higher limit it never reached', async () => {
		const clock = new VirtualClock();
		const limiter = new AdaptiveSendRateLimiter({ maxPerSecond: 1000 }, clock);

		limiter.recordThrottled(await sendSteadily(clock, limiter, 10, 1500));

		expect(limiter.rateAt(clock.now())).toBeCloseTo(70, 6);
	});

	it('decreases once for the 429s of requests already in flight, again for a 429 at the lowered rate', async () => {
		const clock = new VirtualClock();
		const limiter = new AdaptiveSendRateLimiter({ maxPerSecond: 0 }, clock);
		const inFlightStarts = await Promise.all(Array.from({ length: 10 }, () => limiter.acquire()));
		await sendSteadily(clock, limiter, 10, 1500);

		limiter.recordThrottled(clock.now());
		const lowered = limiter.rateAt(clock.now());
		for (const startedAt of inFlightStarts) limiter.recordThrottled(startedAt);
		expect(limiter.rateAt(clock.now())).toBe(lowered);

		const sentAtLoweredRate = await limiter.acquire();
		limiter.recordThrottled(sentAtLoweredRate);
		expect(limiter.rateAt(clock.now())).toBeLessThan(lowered * 0.71);
	});

	it('climbs back gradually: slowly at first, back at the old rate after the recovery time, then beyond', async () => {
		const clock = new VirtualClock();
		const limiter = new AdaptiveSendRateLimiter({ maxPerSecond: 0 }, clock);
		limiter.recordThrottled(await sendSteadily(clock, limiter, 10, 1500));
		const decreasedAt = clock.now();
		const recoveryMs = Math.cbrt((100 * 0.3) / 0.4) * 1000;

		const rates = [0, 1000, 2000, 3000, recoveryMs, recoveryMs + 2000].map((ms) =>
			limiter.rateAt(decreasedAt + ms),
		);

		rates.slice(1).forEach((rate, i) => expect(rate).toBeGreaterThan(rates[i]));
		expect(rates[1]).toBeLessThan(90);
		expect(rates[4]).toBeCloseTo(100, 6);
		expect(rates[5]).toBeGreaterThan(100);
	});

	it('at a low rate still takes 3 s to climb back, so items refused at the peak retry (a second later) below it', async () => {
		const clock = new VirtualClock();
		const limiter = new AdaptiveSendRateLimiter({ maxPerSecond: 0 }, clock);
		limiter.recordThrottled(await sendSteadily(clock, limiter, 200, 3000));
		const decreasedAt = clock.now();

		expect(limiter.rateAt(decreasedAt)).toBeCloseTo(3.5, 6);
		expect(limiter.rateAt(decreasedAt + 1000)).toBeLessThan(4.6);
		expect(limiter.rateAt(decreasedAt + 3000)).toBeCloseTo(5, 6);
	});

	it('never climbs above the user’s Max Messages per Second', async () => {
		const clock = new VirtualClock();
		const limiter = new AdaptiveSendRateLimiter({ maxPerSecond: 50 }, clock);
		limiter.recordThrottled(await sendSteadily(clock, limiter, 10, 1500));
		expect(limiter.rateAt(clock.now())).toBeCloseTo(35, 6);

		await clock.run(clock.sleep(60_000));
		expect(limiter.rateAt(clock.now())).toBe(50);
		const starts = await startTimes(clock, limiter, 4, 5);
		expect(starts).toHaveLength(4 * 5);
		starts.slice(1).forEach((start, i) => expect(start - starts[i]).toBeCloseTo(20, 6));
	});

	it('lets a retry go before first tries that were waiting longer', async () => {
		const clock = new VirtualClock();
		const limiter = new AdaptiveSendRateLimiter({ maxPerSecond: 10 }, clock);
		const order: string[] = [];
		const waitFor = async (name: string, turn: 'retry' | 'first') => {
			await limiter.acquire(turn);
			order.push(name);
		};

		await clock.run(
			Promise.all([
				waitFor('first A', 'first'),
				waitFor('first B', 'first'),
				waitFor('first C', 'first'),
				waitFor('retry R', 'retry'),
			]),
		);

		expect(order).toEqual(['first A', 'retry R', 'first B', 'first C']);
		expect(clock.now()).toBe(300);
	});

	it('sends through and reports a throttled answer itself, passing answers and rejections on unchanged', async () => {
		const clock = new VirtualClock();
		const limiter = new AdaptiveSendRateLimiter({ maxPerSecond: 0 }, clock);
		await sendSteadily(clock, limiter, 10, 1500);
		const refusal = { status: 429 };
		const broken = new Error('no answer');

		await expect(
			limiter.send(
				'first',
				async () => await Promise.reject(broken),
				() => true,
			),
		).rejects.toBe(broken);
		expect(limiter.rateAt(clock.now())).toBe(Number.POSITIVE_INFINITY);
		await expect(
			limiter.send(
				'first',
				async () => refusal,
				(answer) => answer === refusal,
			),
		).resolves.toBe(refusal);
		expect(limiter.rateAt(clock.now())).toBeLessThan(75);
		await expect(
			limiter.send(
				'first',
				async () => 'ack',
				() => false,
			),
		).resolves.toBe('ack');
	});
});

describe('a 1,000-message campaign against a provider allowing 100/s with a burst of 10 (virtual time)', () => {
	const provider = { perSecond: 100, burst: 10, latencyMs: 20, jitterMs: 5 };

	it('without a limit of its own, at 3 tries, delivers every item exactly once, learning the rate from few 429s', async () => {
		const clock = new VirtualClock();
		const simulated = new SimulatedProvider(provider, clock);

		const outcome = await runCampaign(
			{ items: 1000, concurrency: 10, maxTries: 3, maxPerSecond: 0 },
			simulated,
			clock,
		);

		expect(outcome.failedItems).toEqual([]);
		expect([...simulated.accepted].sort((a, b) => a - b)).toEqual(
			Array.from({ length: 1000 }, (_, i) => i),
		);
		// Sending flat out, the same lanes without the adaptive rate see about 80.
		expect(simulated.throttled).toBeLessThan(25);
		// Not a collapse: pausing every lane for each Retry-After would take well over a minute.
		expect(outcome.durationMs).toBeLessThan(12_000);
	});

	it('with Max Messages per Second at the provider’s rate, never draws a 429', async () => {
		const clock = new VirtualClock();
		const simulated = new SimulatedProvider(provider, clock);

		const outcome = await runCampaign(
			{ items: 1000, concurrency: 10, maxTries: 3, maxPerSecond: 100 },
			simulated,
			clock,
		);

		expect(outcome.failedItems).toEqual([]);
		expect(simulated.throttled).toBe(0);
		expect(new Set(simulated.accepted).size).toBe(1000);
	});
});
