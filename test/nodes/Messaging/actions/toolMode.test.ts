import type { IExecuteFunctions } from 'n8n-workflow';

import { route } from '../../../../nodes/Messaging/actions/router';
import {
	agentWaitRefusal,
	reviewMessageExpression,
	runsAsHumanReview,
} from '../../../../nodes/Messaging/actions/toolMode';

/**
 * Which of n8n's three registrations of the node runs (the node, its `…Tool` for an AI Agent, its `…HitlTool` as
 * Human review), and how that changes Send and Wait. The runs through n8n's engine are in
 * test/nodes/Messaging/workflows/humanReview.workflow.test.ts and the e2e's `human-review` phase.
 */

interface Situation {
	type: string;
	/** n8n-core's SupplyDataContext says true when an agent runs the tool itself (AI Agent before 3). */
	toolExecution?: boolean;
	executionOrder?: 'v0' | 'v1';
}

function contextIn({ type, toolExecution = false, executionOrder = 'v1' }: Situation) {
	const parameters: Record<string, unknown> = {
		resource: 'whatsapp',
		operation: 'sendAndWait',
		to: '+919812345678',
		messageType: 'session',
		message: 'Ship it?',
	};
	const httpRequestWithAuthentication = jest.fn();
	const context = {
		getNode: () => ({ id: 'ask', name: 'Ask', type, typeVersion: 1, parameters }),
		isToolExecution: () => toolExecution,
		getWorkflowSettings: () => ({ executionOrder }),
		getInputData: () => [{ json: { text: 'Ship it?' } }],
		continueOnFail: () => false,
		getNodeParameter: (name: string, _item: number, fallback?: unknown) =>
			parameters[name] ?? fallback,
		helpers: { httpRequestWithAuthentication },
	};
	return { context: context as unknown as IExecuteFunctions, httpRequestWithAuthentication };
}

const NODE = 'n8n-nodes-messaging.messaging';
const TOOL = 'n8n-nodes-messaging.messagingTool';
const REVIEW = 'n8n-nodes-messaging.messagingHitlTool';

const INSTEAD =
	"connect the Messaging node to the tool as Human review instead (on the tool's connector: Human review > Messaging), or use Send.";

describe('Send and Wait as a plain agent tool', () => {
	test.each([
		['the node in a workflow', { type: NODE, executionOrder: 'v0' as const }],
		['Human review in order v1', { type: REVIEW }],
		['a tool AI Agent 3 hands to the engine, in order v1', { type: TOOL }],
	])('%s may wait', (_what, situation) => {
		expect(agentWaitRefusal(contextIn(situation).context)).toBeUndefined();
	});

	test('a tool an agent runs itself (AI Agent before 3) is refused: it could never be resumed', () => {
		const refusal = agentWaitRefusal(contextIn({ type: TOOL, toolExecution: true }).context);
		expect(refusal?.message).toBe(
			"Send and Wait cannot run as this AI Agent's tool: an AI Agent before version 3 runs its tools itself and does not wait for a person's answer",
		);
		expect(refusal?.description).toBe(
			`Upgrade the AI Agent node to version 3 or later, ${INSTEAD}`,
		);
	});

	test('a tool in the legacy execution order is refused: n8n resumes the agent before the answer', () => {
		const refusal = agentWaitRefusal(contextIn({ type: TOOL, executionOrder: 'v0' }).context);
		expect(refusal?.description).toBe(
			`Set Workflow Settings > Execution Order to "v1 (recommended)", ${INSTEAD}`,
		);
	});

	test('Human review in the legacy execution order is refused: the agent reads a rejection before the approver answers', () => {
		const refusal = agentWaitRefusal(contextIn({ type: REVIEW, executionOrder: 'v0' }).context);
		expect([refusal?.message, refusal?.description]).toEqual([
			'Human review cannot run under the legacy execution order (v0): n8n resumes the agent before the approver answers, so the tool would never run',
			'Set Workflow Settings > Execution Order to "v1 (recommended)".',
		]);
	});

	test('the router answers an agent that runs its tools itself with an item it reads (it reads a thrown error as ""), and sends nothing', async () => {
		const { context, httpRequestWithAuthentication } = contextIn({
			type: TOOL,
			toolExecution: true,
		});
		const output = await route.call(context);
		expect(output).toEqual([
			[
				{
					json: {
						error: `Send and Wait cannot run as this AI Agent's tool: an AI Agent before version 3 runs its tools itself and does not wait for a person's answer. Upgrade the AI Agent node to version 3 or later, ${INSTEAD}`,
					},
					pairedItem: { item: 0 },
				},
			],
		]);
		expect(httpRequestWithAuthentication).not.toHaveBeenCalled();
	});

	test('the router throws the refusal in order v0, before anything is sent', async () => {
		const { context, httpRequestWithAuthentication } = contextIn({
			type: TOOL,
			executionOrder: 'v0',
		});
		await expect(route.call(context)).rejects.toThrow(
			/^Send and Wait cannot run as an agent tool under the legacy execution order \(v0\)/,
		);
		expect(httpRequestWithAuthentication).not.toHaveBeenCalled();
	});
});

describe('Human review', () => {
	test('is told apart by its type', () => {
		expect(
			[NODE, TOOL, REVIEW].map((type) => runsAsHumanReview(contextIn({ type }).context)),
		).toEqual([false, false, true]);
	});

	test.each([
		[
			"n8n's default message",
			'The agent wants to run this tool: {{ $tool.name }}\n\nInput:\n{{ $tool.parameters }}',
			'The agent wants to run this tool: {{ $tool.name }}\n\nInput:\n{{ JSON.stringify($tool.parameters, null, 2) }}',
		],
		[
			'without spaces, twice',
			'{{$tool.parameters}} {{ $tool.parameters }}',
			'{{ JSON.stringify($tool.parameters, null, 2) }} {{ JSON.stringify($tool.parameters, null, 2) }}',
		],
		['one parameter stays as written', '{{ $tool.parameters.to }}', '{{ $tool.parameters.to }}'],
		[
			'an expression of its own stays',
			'{{ JSON.stringify($tool.parameters) }}',
			'{{ JSON.stringify($tool.parameters) }}',
		],
	])('%s: the parameters object is written as JSON', (_what, raw, expected) => {
		expect(reviewMessageExpression(raw)).toBe(expected);
	});
});
