import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions } from 'n8n-workflow';

import { runsAsAgentTool } from './itemErrors';

/**
 * n8n 2.x registers a node with a Send and Wait operation a third time, as `<package>.messagingHitlTool`
 * ("Human review"): it sits between the AI Agent and another tool and runs Send and Wait, Approval only, before
 * that tool may run (n8n/dist/tool-generation/hitl-tools.js).
 */
export function runsAsHumanReview(context: IExecuteFunctions): boolean {
	return context.getNode().type.endsWith('HitlTool');
}

const INSTEAD =
	"connect the Messaging node to the tool as Human review instead (on the tool's connector: Human review > Messaging), or use Send";

const V1_ORDER = 'Set Workflow Settings > Execution Order to "v1 (recommended)"';

/**
 * Send and Wait for an AI Agent waits only when n8n's engine runs the call (AI Agent 3 and later) in execution
 * order v1: the execution waits, and the answer resumes the agent. Otherwise the question would go out and its
 * answer could never be used, so the node refuses before anything is sent.
 */
export function agentWaitRefusal(context: IExecuteFunctions): NodeOperationError | undefined {
	if (!runsAsAgentTool(context)) return undefined;
	const node = context.getNode();
	const review = runsAsHumanReview(context);
	if (!review && context.isToolExecution()) {
		return new NodeOperationError(
			node,
			"Send and Wait cannot run as this AI Agent's tool: an AI Agent before version 3 runs its tools itself and does not wait for a person's answer",
			{ description: `Upgrade the AI Agent node to version 3 or later, ${INSTEAD}.` },
		);
	}
	if (context.getWorkflowSettings().executionOrder === 'v1') return undefined;
	if (review) {
		return new NodeOperationError(
			node,
			'Human review cannot run under the legacy execution order (v0): n8n resumes the agent before the approver answers, so the tool would never run',
			{ description: `${V1_ORDER}.` },
		);
	}
	return new NodeOperationError(
		node,
		'Send and Wait cannot run as an agent tool under the legacy execution order (v0): n8n resumes the agent before the person answers',
		{ description: `${V1_ORDER}, ${INSTEAD}.` },
	);
}

/**
 * n8n's Human review message names `{{ $tool.parameters }}`, an object, which n8n's expressions write into a
 * text as "[object Object]"; written as JSON the approver reads what the tool would be called with.
 */
const TOOL_PARAMETERS = /\{\{\s*\$tool\.parameters\s*\}\}/;

export function reviewMessageExpression(raw: string): string {
	return raw.replace(
		new RegExp(TOOL_PARAMETERS.source, 'g'),
		'{{ JSON.stringify($tool.parameters, null, 2) }}',
	);
}

/** The review's Message as the approver reads it: the tool's parameters as JSON. */
export function reviewMessage(context: IExecuteFunctions, itemIndex: number): unknown {
	const raw = context.getNodeParameter('message', itemIndex, '', { rawExpressions: true });
	if (typeof raw !== 'string' || !raw.startsWith('=') || !TOOL_PARAMETERS.test(raw))
		return context.getNodeParameter('message', itemIndex, '');
	return context.evaluateExpression(reviewMessageExpression(raw.slice(1)), itemIndex);
}
