import { AdaptiveSendRateLimiter } from '../../../../nodes/Messaging/throughput/rateLimiter';
import { ProviderBudgetShare } from '../../../../nodes/Messaging/throughput/providerBudgetShare';
import { sendCampaign, SimulatedProvider } from './simulatedProvider';
import { VirtualClock } from './virtualClock';

describe('ProviderBudgetShare', () => {
	it('keeps the full rate while half the budget is left, then slows in step with it, to a tenth at least', () => {
		const share = new ProviderBudgetShare();
		expect(share.rateAt(0)).toBe(Number.POSITIVE_INFINITY);

		const rates = [99, 49, 24, 9, 4, 0].map((remaining) => {
			share.record({ remaining, quota: 100, windowSeconds: 1 }, 0);
			return share.rateAt(0);
		});
		expect(rates).toEqual([100, 100, 50, 20, 10, 10]);
		share.record({ remaining: 1, quota: 10, windowSeconds: 0.1 }, 30);
		expect(share.rateAt(30)).toBeCloseTo(40, 9);
	});

	it('forgets an answer older than a second: other senders may have come or gone since', () => {
		const share = new ProviderBudgetShare();
		share.record({ remaining: 0, quota: 100, windowSeconds: 1 }, 0);
		expect(share.rateAt(1000)).toBe(10);
		expect(share.rateAt(1001)).toBe(Number.POSITIVE_INFINITY);
	});

	it('caps the limiter below the user’s own limit, never above it', () => {
		const clock = new VirtualClock();
		const limiter = new AdaptiveSendRateLimiter({ maxPerSecond: 40 }, clock);
		limiter.recordProviderBudget({ remaining: 4, quota: 100, windowSeconds: 1 });
		expect(limiter.rateAt(0)).toBe(10);
		limiter.recordProviderBudget({ remaining: 99, quota: 100, windowSeconds: 1 });
		expect(limiter.rateAt(0)).toBe(40);
	});
});

describe('four 1,000-message campaigns at 100/s each, sharing an account limited to 100/s (virtual time)', () => {
	const provider = { perSecond: 100, burst: 100, latencyMs: 20, jitterMs: 5 };
	const idealMs = (4 * 1000 * 1000) / provider.perSecond;

	async function runFour(readsBudget: boolean) {
		const clock = new VirtualClock();
		const simulated = new SimulatedProvider(provider, clock);
		const campaigns = [0, 1, 2, 3].map(
			async (campaign) =>
				await sendCampaign(
					{
						items: 1000,
						concurrency: 5,
						maxTries: 5,
						maxPerSecond: 100,
						readsBudget,
						firstItem: campaign * 1000,
					},
					simulated,
					clock,
				),
		);
		const outcomes = await clock.run(Promise.all(campaigns));
		return { simulated, outcomes, durationMs: clock.now() };
	}

	it('paced by the budget the provider tells, deliver every message once within 1.1 × the ideal, ≤ 1% answered 429', async () => {
		const { simulated, outcomes, durationMs } = await runFour(true);

		expect(outcomes.flatMap((outcome) => outcome.failedItems)).toEqual([]);
		expect([...simulated.accepted].sort((a, b) => a - b)).toEqual(
			Array.from({ length: 4000 }, (_, i) => i),
		);
		expect(simulated.throttled).toBeLessThanOrEqual(40);
		expect(durationMs).toBeLessThanOrEqual(1.1 * idealMs);
	});

	it('each believing it owns the whole rate, draw far more 429s', async () => {
		const blind = await runFour(false);
		const told = await runFour(true);

		expect(blind.simulated.accepted).toHaveLength(4000);
		expect(blind.simulated.throttled).toBeGreaterThan(4 * Math.max(10, told.simulated.throttled));
	});
});
