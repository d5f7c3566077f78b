import { randomUUID } from 'node:crypto';

import { campaignMessagingNode, SMS_ENTITY_ID, SMS_TEMPLATE_ID } from '../../lib/campaign-nodes';
import { EXAMPLE_CREDENTIAL } from '../../lib/examples';

export const BARE_HELPER_NODE_TYPE = 'n8n-nodes-bare-helper-yardstick.bareHelper';

export type Sender =
	| {
			kind: 'messaging';
			options: Record<string, unknown>;
			credential?: { id: string; name: string };
	  }
	| { kind: 'httpRequest'; options: Record<string, unknown> }
	| { kind: 'bareHelper'; maxConcurrent: number };

/** One case of a workflow: its own rows (tagged `runTag`) and its own sender, on a branch of its own. */
export interface Branch {
	key: string;
	runTag: string;
	count: number;
	sender: Sender;
	/**
	 * The branch calls this workflow (Execute Workflow, passing `runTag`) instead of sending itself: its campaign is
	 * then an execution of its own in the same n8n process.
	 */
	subWorkflowId?: string;
	/** The rows take their tag from the input item's `runTag`: a sub-workflow's, which its caller passes. */
	tagFromInput?: boolean;
}

/** The rows a branch sends: `order_id` carries the run tag and the row, so every request traces to its case. */
function rowsCode({ count, runTag, tagFromInput }: Branch): string {
	const tag = tagFromInput ? '$input.first().json.runTag' : `'${runTag}'`;
	return `const tag = ${tag}; return Array.from({ length: ${count} }, (_, i) => ({ json: { phone: '+9198' + String(10000000 + i), name: 'Customer ' + i, orderId: tag + '-' + i } }));`;
}

/** What a user builds instead: n8n's HTTP Request node posting the same form fields with the key in a header. */
function httpRequestNode(baseUrl: string, apiKey: string, options: Record<string, unknown>) {
	return {
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			method: 'POST',
			url: `${baseUrl}/v1/sms/send`,
			sendHeaders: true,
			headerParameters: { parameters: [{ name: 'Authorization', value: `Bearer ${apiKey}` }] },
			sendBody: true,
			contentType: 'form-urlencoded',
			bodyParameters: {
				parameters: [
					{ name: 'to', value: '={{ $json.phone }}' },
					{ name: 'entity_id', value: SMS_ENTITY_ID },
					{ name: 'template_id', value: SMS_TEMPLATE_ID },
					{
						name: 'content',
						value:
							"={{ JSON.stringify({ customer_name: $json.name, order_id: $json.orderId, eta: '24 Nov' }) }}",
					},
				],
			},
			options,
		},
		// A user who wants the other rows sent when one fails sets this; the failed rows are then counted, not hidden.
		onError: 'continueRegularOutput',
	};
}

function senderNode(sender: Sender, api: { baseUrl: string; apiKey: string }) {
	switch (sender.kind) {
		case 'messaging':
			return {
				...campaignMessagingNode(sender.options),
				...(sender.credential && { credentials: { messagingApi: sender.credential } }),
			};
		case 'httpRequest':
			return httpRequestNode(api.baseUrl, api.apiKey, sender.options);
		default:
			return {
				type: BARE_HELPER_NODE_TYPE,
				typeVersion: 1,
				parameters: { maxConcurrent: sender.maxConcurrent },
				credentials: { messagingApi: EXAMPLE_CREDENTIAL },
			};
	}
}

export const SETTLE_NODE_TYPE = 'n8n-nodes-bare-helper-yardstick.settle';

export const rowsNodeName = (branch: Branch) => `Rows ${branch.key}`;
export const sendNodeName = (branch: Branch) => `Send ${branch.key}`;

const START_NODES = {
	manual: { type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} },
	// A sub-workflow's start: it takes whatever its caller passes.
	subWorkflow: {
		type: 'n8n-nodes-base.executeWorkflowTrigger',
		typeVersion: 1.1,
		parameters: { inputSource: 'passthrough' },
	},
};

/** A branch whose campaign is a sub-workflow's execution: its tag, then Execute Workflow passing it on. */
function subWorkflowCall(branch: Branch & { subWorkflowId: string }): object[] {
	return [
		{
			name: `Tag ${branch.key}`,
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			parameters: { jsCode: `return [{ json: { runTag: '${branch.runTag}' } }];` },
		},
		{
			name: `Run ${branch.key}`,
			type: 'n8n-nodes-base.executeWorkflow',
			typeVersion: 1.2,
			parameters: {
				source: 'database',
				workflowId: { __rl: true, value: branch.subWorkflowId, mode: 'id' },
				mode: 'once',
				options: { waitForSubWorkflow: true },
			},
		},
	];
}

/** The nodes of one branch after its start, in the order they run. */
function branchNodes(branch: Branch, api: { baseUrl: string; apiKey: string }): object[] {
	if (branch.subWorkflowId)
		return subWorkflowCall({ ...branch, subWorkflowId: branch.subWorkflowId });
	return [
		{
			name: rowsNodeName(branch),
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			parameters: { jsCode: rowsCode(branch) },
		},
		{ name: sendNodeName(branch), ...senderNode(branch.sender, api) },
	];
}

/**
 * One workflow, one branch per case: Manual Trigger → (Wait) → Rows → sender. With execution order v1 n8n runs
 * one branch to its end before the next, top to bottom, so the branches' order on the canvas is the order the
 * cases run in, and each case's run data (start time, execution time) is its own. `pauseSeconds` waits before
 * each branch, e.g. for a token bucket to refill between cases. `settle` collects n8n's heap in full before each
 * branch, ahead of the pause (n8n started with --expose-gc). A sub-workflow starts at an Execute Workflow Trigger
 * instead.
 */
export function campaignWorkflow(
	id: string,
	branches: Branch[],
	api: { baseUrl: string; apiKey: string },
	{
		pauseSeconds = 0,
		settle = false,
		start = 'manual',
	}: { pauseSeconds?: number; settle?: boolean; start?: keyof typeof START_NODES } = {},
) {
	const nodes: object[] = [
		{ id: randomUUID(), name: 'Start', position: [0, 0], ...START_NODES[start] },
	];
	const connections: Record<string, { main: Array<Array<object>> }> = { Start: { main: [[]] } };
	const link = (from: string, to: string) => {
		connections[from] ??= { main: [[]] };
		connections[from].main[0].push({ node: to, type: 'main', index: 0 });
	};
	// Before each branch: a full collection of n8n's heap, then the pause.
	const leadNodes = (branch: Branch): object[] => [
		...(settle
			? [{ name: `Settle ${branch.key}`, type: SETTLE_NODE_TYPE, typeVersion: 1, parameters: {} }]
			: []),
		...(pauseSeconds > 0
			? [
					{
						name: `Pause ${branch.key}`,
						type: 'n8n-nodes-base.wait',
						typeVersion: 1.1,
						parameters: { resume: 'timeInterval', amount: pauseSeconds, unit: 'seconds' },
					},
				]
			: []),
	];
	branches.forEach((branch, order) => {
		let head = 'Start';
		[...leadNodes(branch), ...branchNodes(branch, api)].forEach((node, step) => {
			const { name } = node as { name: string };
			nodes.push({ id: randomUUID(), position: [220 * (step + 1), order * 200], ...node });
			link(head, name);
			head = name;
		});
	});
	return {
		id,
		name: `Bench ${id}`,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
		active: false,
	};
}
