import type { LocalStack } from '../../lib/local-stack';
import { waitFor } from '../../n8n/executions';
import type { EventRecorder } from '../../../test/e2e/event-recorder';
import { waitUntilRegistered } from '../../../test/e2e/trigger-burst.e2e';
import { measureCase, type CaseFigures, type Load } from './measureCase';
import type { EventTarget } from './workflows';

export interface KillFigures extends CaseFigures {
	signal: 'SIGKILL' | 'SIGTERM';
	/** How long n8n was away, from the signal until it answered again. */
	downSeconds: number;
}

/**
 * A burst to the target, n8n stopped by `signal` once a quarter of it ran, started again on the same database;
 * the sender keeps retrying every delivery not answered 2xx until it is. Then: lost and run twice.
 */
export async function killMidBurst(
	stack: LocalStack,
	recorder: EventRecorder,
	target: EventTarget,
	load: Load,
	signal: KillFigures['signal'],
	tag: string,
): Promise<KillFigures> {
	let downSeconds = Number.NaN;
	const ranBefore = recorder.runsOf(target.source).size;
	const kill = (async () => {
		await waitFor('a quarter of the burst to run', 10 * 60_000, async () =>
			recorder.runsOf(target.source).size - ranBefore >= load.events / 4 ? true : undefined,
		);
		const killedAt = Date.now();
		await stack.restartN8n({ signal });
		await waitUntilRegistered(target);
		downSeconds = (Date.now() - killedAt) / 1000;
	})();
	const figures = await measureCase(stack.rest, recorder, target, load, tag, {
		whileSending: kill,
	});
	return { ...figures, signal, downSeconds };
}
