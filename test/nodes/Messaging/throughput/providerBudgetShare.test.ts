import { AdaptiveSendRateLimiter } from '../../../../nodes/Messaging/throughput/rateLimiter';
import {
	ProviderBudgetShare,
	ProviderBudgetSpent,
} from '../../../../nodes/Messaging/throughput/providerBudgetShare';
import { sendCampaign, SimulatedProvider } from './simulatedProvider';
import { VirtualClock } from './virtualClock';

describe('ProviderBudgetShare', () => {
	/** Answers as a key another sender also uses: each drops the budget by more than this sender's own request. */
	function sharedKey(share: ProviderBudgetShare) {
		share.record({ remaining: 100, quota: 100, windowSeconds: 1 }, 0);
		share.record({ remaining: 90, quota: 100, windowSeconds: 1 }, 0);
	}

	it('alone on the key, keeps its own pace whatever is left, and knows the budget spent until the reset', () => {
		const share = new ProviderBudgetShare();
		expect(share.rateAt(0)).toBe(Number.POSITIVE_INFINITY);

		const budget = { quota: 50, windowSeconds: 60 };
		share.record({ ...budget, remaining: 3, resetSeconds: 40 }, 20_000);
		expect(share.rateAt(20_000)).toBe(Number.POSITIVE_INFINITY);
		expect(share.spentUntil(20_000)).toBeUndefined();
		share.recordStart();
		share.recordStart();
		expect(share.spentUntil(20_000)).toBeUndefined();
		share.recordStart();
		expect(share.spentUntil(20_000)).toBe(60_000);
		expect(share.spentUntil(60_000)).toBeUndefined();
	});

	it('counts its own requests still on the wire as spent, until their answers tell', () => {
		const share = new ProviderBudgetShare();
		share.record({ remaining: 4, quota: 50, windowSeconds: 60, resetSeconds: 30 }, 0, 5);
		expect(share.spentUntil(0)).toBe(30_000);
		share.record({ remaining: 3, quota: 50, windowSeconds: 60, resetSeconds: 30 }, 10, 4);
		expect(share.spentUntil(10)).toBe(30_000);
		share.record({ remaining: 3, quota: 50, windowSeconds: 60, resetSeconds: 30 }, 20, 1);
		expect(share.spentUntil(20)).toBeUndefined();
	});

	it('takes the earliest reset one window told (whole seconds round up), and a rise as a new window', () => {
		const share = new ProviderBudgetShare();
		share.record({ remaining: 9, quota: 10, windowSeconds: 1, resetSeconds: 1 }, 10);
		share.record({ remaining: 0, quota: 10, windowSeconds: 1, resetSeconds: 1 }, 450);
		expect(share.spentUntil(450)).toBe(1010);
		share.record({ remaining: 9, quota: 10, windowSeconds: 1, resetSeconds: 1 }, 1020);
		share.record({ remaining: 0, quota: 10, windowSeconds: 1, resetSeconds: 1 }, 1400);
		expect(share.spentUntil(1400)).toBe(2020);
	});

	it('with others on the key, keeps the full rate while half the budget is left, then slows in step with it, to a tenth at least', () => {
		const share = new ProviderBudgetShare();
		sharedKey(share);
		const rates = [99, 49, 24, 9, 4, 0].map((remaining) => {
			share.record({ remaining, quota: 100, windowSeconds: 1 }, 0);
			return share.rateAt(0);
		});
		expect(rates).toEqual([100, 100, 50, 20, 10, 10]);
	});

	it('with others on the key, past the reset paces at the full rate, not at its own', () => {
		const share = new ProviderBudgetShare();
		sharedKey(share);
		share.record({ remaining: 0, quota: 100, windowSeconds: 1 }, 0);
		expect(share.rateAt(1000)).toBe(100);
	});

	it('starts nothing before the reset of a spent budget, then keeps the user’s spacing, without a burst to catch up', async () => {
		const clock = new VirtualClock();
		const limiter = new AdaptiveSendRateLimiter({ maxPerSecond: 10 }, clock);
		limiter.recordProviderBudget({ remaining: 0, quota: 3, windowSeconds: 0.3, resetSeconds: 1 });
		expect(limiter.budgetSpentUntil()).toBe(1000);

		const starts = await clock.run(
			Promise.all(Array.from({ length: 4 }, async () => await limiter.acquire())),
		);
		expect(starts).toEqual([1000, 1100, 1200, 1300]);
		expect(limiter.budgetSpentUntil()).toBeUndefined();
	});

	it('caps the limiter below the user’s own limit, never above it', () => {
		const clock = new VirtualClock();
		const limiter = new AdaptiveSendRateLimiter({ maxPerSecond: 40 }, clock);
		expect(limiter.rateAt(0)).toBe(40);
		limiter.recordProviderBudget({ remaining: 100, quota: 100, windowSeconds: 1 });
		limiter.recordProviderBudget({ remaining: 4, quota: 100, windowSeconds: 1 });
		expect(limiter.rateAt(0)).toBe(10);
		limiter.recordProviderBudget({ remaining: 99, quota: 100, windowSeconds: 1, resetSeconds: 1 });
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

describe('ProviderBudgetSpent', () => {
	const now = Date.UTC(2026, 10, 24, 2, 0, 0);

	test.each([
		[10 * 3_600_000, '2026-11-24T12:00:00.000Z', 'resets in 10 h'],
		[90 * 60_000, '2026-11-24T03:30:00.000Z', 'resets in 1.5 h'],
		[45 * 60_000 + 1, '2026-11-24T02:45:00.001Z', 'resets in 46 min'],
	])('a reset %i ms away reads as when and how long', (inMs, at, inWords) => {
		const error = new ProviderBudgetSpent(now + inMs, now);
		expect(error.message).toContain(`used up until ${at} (${inWords})`);
		expect(error.message).toContain('this message was not sent');
		expect(error.name).toBe('ProviderBudgetSpent');
	});
});
