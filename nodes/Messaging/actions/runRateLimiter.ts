import type { IExecuteFunctions } from 'n8n-workflow';

import { RecentlyUsedMap } from '../../shared/recentlyUsedMap';
import type { Clock } from '../throughput/clock';
import { AdaptiveSendRateLimiter } from '../throughput/rateLimiter';
import { runsAsAgentTool } from './itemErrors';

/** Tool nodes of workflows that were deactivated or deleted must not hold their limiters for the process's life. */
const TOOL_LIMITERS_KEPT = 100;
const toolLimiters = new RecentlyUsedMap<string, AdaptiveSendRateLimiter>(TOOL_LIMITERS_KEPT);

/**
 * The limiter a run paces its sends by. A workflow run gets its own: it holds all of its items. An AI Agent calls
 * the tool once per message, each call a run of one item, so a tool node keeps one limiter across its calls in this
 * process: Max Messages per Second then spaces the calls, and a provider budget learnt in one call holds in the next.
 */
export function rateLimiterForRun(
	context: IExecuteFunctions,
	maxPerSecond: number,
	clock: Clock,
): AdaptiveSendRateLimiter {
	if (!runsAsAgentTool(context)) return new AdaptiveSendRateLimiter({ maxPerSecond }, clock);
	const key = [context.getWorkflow().id ?? '', context.getNode().id, maxPerSecond].join('\u0000');
	return toolLimiters.getOrCreate(key, () => new AdaptiveSendRateLimiter({ maxPerSecond }, clock));
}
