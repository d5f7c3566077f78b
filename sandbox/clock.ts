import type { SandboxClock } from './types';

/** Wall-clock time that can still be moved forward, so a running sandbox can close session windows. */
export function createSystemClock(): SandboxClock {
	let offsetMs = 0;
	return {
		now: () => Date.now() + offsetMs,
		advance(ms: number) {
			offsetMs += ms;
		},
	};
}

/** Time that only moves when a test says so. */
export function createManualClock(startMs: number = Date.now()): SandboxClock {
	let nowMs = startMs;
	return {
		now: () => nowMs,
		advance(ms: number) {
			nowMs += ms;
		},
	};
}
