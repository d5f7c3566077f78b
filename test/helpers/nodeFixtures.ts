import type { INode, INodeCredentials, INodeParameters } from 'n8n-workflow';

/** Full type names, as a workflow and the test registry (test/helpers/nodeTypes.ts) spell them. */
export const MESSAGING_NODE_TYPE = 'n8n-nodes-messaging.messaging';
export const MESSAGING_TRIGGER_NODE_TYPE = 'n8n-nodes-messaging.messagingTrigger';
export const NO_OP_NODE_TYPE = 'n8n-nodes-base.noOp';

/** The webhook id n8n would give the trigger node when it is added to a workflow. */
export const TRIGGER_WEBHOOK_ID = '4f1c2b9e-8d7a-4e53-9a61-0c2f3b5d7e90';

/** The credential reference a saved workflow's Messaging node carries (a fresh object per call). */
export function messagingApiCredentials(): INodeCredentials {
	return { messagingApi: { id: '1', name: 'Messaging API' } };
}

/** A node of `type` as a saved workflow holds it: version 1, at the origin, `parameters` as given. */
function workflowNode(
	type: string,
	name: string,
	parameters: INodeParameters,
	overrides: Partial<INode>,
): INode {
	return {
		id: name.toLowerCase().replace(/ /g, '-'),
		name,
		type,
		typeVersion: 1,
		position: [0, 0],
		...overrides,
		parameters,
	};
}

/**
 * The Messaging node as a workflow holds it: named "Messaging", with `parameters` as given (not completed with
 * defaults). `overrides` replaces any other field (id, name, position, credentials, onError, …).
 */
export function messagingNode(
	parameters: INodeParameters = {},
	overrides: Partial<INode> = {},
): INode {
	return workflowNode(MESSAGING_NODE_TYPE, 'Messaging', parameters, overrides);
}

/**
 * The Messaging Trigger node as a workflow holds it: named "Messaging Trigger", with its webhook id and
 * signing-secret credential, and `parameters` as given (not completed with defaults).
 */
export function messagingTriggerNode(
	parameters: INodeParameters = {},
	overrides: Partial<INode> = {},
): INode {
	return workflowNode(MESSAGING_TRIGGER_NODE_TYPE, 'Messaging Trigger', parameters, {
		webhookId: TRIGGER_WEBHOOK_ID,
		credentials: { messagingWebhookApi: { id: 'cred-1', name: 'Signing secret' } },
		...overrides,
	});
}

/** n8n's NoOp node, the pass-through used as a workflow's entry point or as a branch's end. */
export function noOpNode(name: string, overrides: Partial<INode> = {}): INode {
	return workflowNode(NO_OP_NODE_TYPE, name, {}, { id: name, ...overrides });
}
