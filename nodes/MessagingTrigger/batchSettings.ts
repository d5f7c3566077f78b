import type { IWebhookFunctions } from 'n8n-workflow';

import type { BatchLimits } from './eventBatches';

/** From this version on, a new trigger collects the events of concurrent deliveries into one execution. */
export const BATCHING_SINCE = 2;
export const DEFAULT_BATCH_WAIT_MS = 5_000;
export const DEFAULT_BATCH_MAX_EVENTS = 100;
/** Held deliveries are open connections, and senders give up on a webhook after some seconds. */
export const MAX_BATCH_WAIT_MS = 5_000;
export const MAX_BATCH_EVENTS = 1_000;

/**
 * The limits of this trigger's batches, or undefined when each delivery runs on its own: older versions, a wait
 * of 0, and "Listen for test event" (n8n takes one test delivery and closes the test webhook).
 */
export function batchLimitsOf(context: IWebhookFunctions): BatchLimits | undefined {
	if (context.getNode().typeVersion < BATCHING_SINCE || context.getMode() === 'manual')
		return undefined;
	const waitMs = context.getNodeParameter('batchWaitMs', DEFAULT_BATCH_WAIT_MS) as number;
	const maxEvents = context.getNodeParameter('batchMaxEvents', DEFAULT_BATCH_MAX_EVENTS) as number;
	if (!(waitMs > 0) || !(maxEvents > 1)) return undefined;
	return {
		waitMs: Math.min(waitMs, MAX_BATCH_WAIT_MS),
		maxEvents: Math.min(Math.floor(maxEvents), MAX_BATCH_EVENTS),
	};
}
