import * as clockModule from '../../nodes/Messaging/throughput/clock';

export interface NodeSleeps {
	/** Every wait the Messaging node asked its clock for (retry backoffs, Retry-After, rate-limit slots), in order. */
	readonly sleeps: number[];
	restore(): void;
}

/**
 * Records the waits the Messaging node asks for while it runs, so a workflow test asserts "waited out the
 * Retry-After" on the wait the node chose, not on elapsed wall-clock time. The waits still pass in real time:
 * the sandbox the node talks to runs on real time too.
 */
export function recordNodeSleeps(): NodeSleeps {
	const sleeps: number[] = [];
	const createRealClock = clockModule.createSystemClock;
	const spy = jest.spyOn(clockModule, 'createSystemClock').mockImplementation(() => {
		const real = createRealClock();
		return {
			now: () => real.now(),
			sleep: async (ms: number) => {
				sleeps.push(ms);
				await real.sleep(ms);
			},
		};
	});
	return { sleeps, restore: () => spy.mockRestore() };
}
