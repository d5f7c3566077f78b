import { ProviderBudgetSpent } from '../../../../nodes/Messaging/throughput/providerBudget';

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
