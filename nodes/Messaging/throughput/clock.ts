import { sleep } from 'n8n-workflow';

export interface Clock {
	now(): number;
	sleep(ms: number): Promise<void>;
}

/** n8n Cloud forbids raw timers in node code; n8n-workflow's `sleep` is the sanctioned wait. */
export function createSystemClock(): Clock {
	return {
		now: () => Date.now(),
		sleep: async (ms) => {
			if (ms > 0) await sleep(ms);
		},
	};
}
