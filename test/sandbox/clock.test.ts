import { createManualClock, createSystemClock, startSandbox } from '../../sandbox';
import { post } from './http-client';

describe('sandbox clocks', () => {
	it('a manual clock moves only when advanced', () => {
		const clock = createManualClock(1_000);
		expect(clock.now()).toBe(1_000);
		clock.advance(500);
		expect(clock.now()).toBe(1_500);
	});

	it('the system clock follows the wall clock plus what was advanced', () => {
		// Bracketed by two wall-clock reads: exact whatever the machine's load, with no tolerance to pick.
		const clock = createSystemClock();
		const before = Date.now();
		const read = clock.now();
		const after = Date.now();
		expect(read).toBeGreaterThanOrEqual(before);
		expect(read).toBeLessThanOrEqual(after);

		clock.advance(60_000);
		const beforeAdvanced = Date.now();
		const readAdvanced = clock.now();
		const afterAdvanced = Date.now();
		expect(readAdvanced - 60_000).toBeGreaterThanOrEqual(beforeAdvanced);
		expect(readAdvanced - 60_000).toBeLessThanOrEqual(afterAdvanced);
	});

	it('the default sandbox clock can close a session window', async () => {
		const sandbox = await startSandbox({ lifecycle: null });
		try {
			const session = () =>
				post(sandbox, '/v1/whatsapp/send', { to: '+919812345678', type: 'session', text: 'hi' });
			expect((await session()).status).toBe(200);
			sandbox.clock.advance(24 * 60 * 60 * 1000);
			expect((await session()).status).toBe(422);
		} finally {
			await sandbox.close();
		}
	});
});
