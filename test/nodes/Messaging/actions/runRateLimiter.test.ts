import type { IExecuteFunctions } from 'n8n-workflow';

import { rateLimiterForRun } from '../../../../nodes/Messaging/actions/runRateLimiter';
import { createSystemClock } from '../../../../nodes/Messaging/throughput/clock';

/** Only what rateLimiterForRun reads of n8n's execute context. */
function runOf(type: string, workflowId: string, nodeId: string): IExecuteFunctions {
	return {
		getNode: () => ({ id: nodeId, type }),
		getWorkflow: () => ({ id: workflowId }),
	} as unknown as IExecuteFunctions;
}

const TOOL = 'n8n-nodes-messaging.messagingTool';
const NODE = 'n8n-nodes-messaging.messaging';
const clock = createSystemClock();

describe('rateLimiterForRun', () => {
	test("an agent's calls of one tool node share one limiter across runs", () => {
		const first = rateLimiterForRun(runOf(TOOL, 'wf1', 'node1'), 2, clock);
		expect(rateLimiterForRun(runOf(TOOL, 'wf1', 'node1'), 2, clock)).toBe(first);
	});

	test('another tool node, workflow or rate gets its own', () => {
		const first = rateLimiterForRun(runOf(TOOL, 'wf2', 'node1'), 2, clock);
		expect(rateLimiterForRun(runOf(TOOL, 'wf2', 'node2'), 2, clock)).not.toBe(first);
		expect(rateLimiterForRun(runOf(TOOL, 'wf3', 'node1'), 2, clock)).not.toBe(first);
		expect(rateLimiterForRun(runOf(TOOL, 'wf2', 'node1'), 5, clock)).not.toBe(first);
	});

	test('a workflow run of the node gets a fresh limiter every time', () => {
		const first = rateLimiterForRun(runOf(NODE, 'wf4', 'node1'), 2, clock);
		expect(rateLimiterForRun(runOf(NODE, 'wf4', 'node1'), 2, clock)).not.toBe(first);
	});
});
