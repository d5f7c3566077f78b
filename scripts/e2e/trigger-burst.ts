/**
 * `npm run test:burst`: only the Messaging Trigger burst of the e2e, in a fresh n8n with the packed package:
 * the figures in the README's "Under a burst" come from here, then the retries after n8n restarts. Options:
 * BURST_EVENTS, BURST_CONCURRENCY.
 */
import { runInE2eEnvironment } from '../../test/e2e/environment';
import { runCheckScript } from '../../test/e2e/harness';
import { checkTriggerBurst, DEFAULT_BURST } from '../../test/e2e/trigger-burst.e2e';
import { checkRecoveredBatch, checkTriggerRestart } from '../../test/e2e/trigger-restart.e2e';

async function main(): Promise<number> {
	const settings = {
		...DEFAULT_BURST,
		events: Number(process.env.BURST_EVENTS ?? DEFAULT_BURST.events),
		concurrency: Number(process.env.BURST_CONCURRENCY ?? DEFAULT_BURST.concurrency),
	};
	return await runInE2eEnvironment({ name: 'burst' }, async ({ context, runner }) => {
		await checkTriggerBurst(context, runner, settings);
		await checkTriggerRestart(context, runner);
		await checkRecoveredBatch(context, runner);
	});
}

runCheckScript(main);
