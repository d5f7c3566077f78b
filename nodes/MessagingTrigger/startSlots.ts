import { MAX_HELD_DELIVERIES } from './eventBatches';

/**
 * Executions of one delivery each that one process hands to n8n at once, from webhook() returning to n8n's answer.
 * n8n 2.40 takes deliveries faster than it saves their event ids and runs them: 200 open deliveries became about
 * 200 executions waiting for their saves (n8n's peak RSS 3.5 GB, 2.5 GB with the slots; the pace did not measurably
 * change, docs/bench.md). Deliveries past the slots wait unanswered, in arrival order, as batched ones wait for
 * their batch.
 */
export const START_SLOTS = 4;

let taken = 0;
const waiting: Array<() => void> = [];

/** False once as many deliveries wait for a slot as the process may hold: the next one is turned away. */
export function canWaitForSlot(): boolean {
	return waiting.length < MAX_HELD_DELIVERIES;
}

/** Resolves once this delivery may start its execution, with the release to call once n8n has answered it. */
export async function takeStartSlot(): Promise<() => void> {
	if (taken < START_SLOTS) taken++;
	else await new Promise<void>((resolve) => waiting.push(resolve));
	let released = false;
	return () => {
		if (released) return;
		released = true;
		const next = waiting.shift();
		// The slot passes straight to the longest waiting delivery.
		if (next) next();
		else taken--;
	};
}

export function startSlotsNow(): { taken: number; waiting: number } {
	return { taken, waiting: waiting.length };
}
