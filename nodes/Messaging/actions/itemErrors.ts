import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';

/** How validation errors open (issueToNodeError), whichever way items are numbered there. */
const ITEM_PREFIX = /^Item \d+: /;

export function asNodeError(
	context: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeOperationError | NodeApiError {
	if (error instanceof NodeOperationError || error instanceof NodeApiError) return error;
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}

/**
 * n8n runs a node as an AI Agent's tool under its tool type (`<package>.messagingTool`); the context's
 * isToolExecution() is false there when the agent hands the call to the workflow engine, so the type decides.
 */
export function runsAsAgentTool(context: IExecuteFunctions): boolean {
	return context.getNode().type.endsWith('Tool');
}

/**
 * A model reads only an error's message (n8n hands it `{ "error": message }`) about the one call it made, so
 * the message drops the item number, which means nothing to it, and carries the fix, so it can call again.
 */
export function messageForAgent(error: NodeOperationError | NodeApiError): string {
	const problem = error.message.replace(ITEM_PREFIX, '');
	const fix = typeof error.description === 'string' ? error.description.trim() : '';
	return fix ? `${problem.replace(/[\s.]+$/, '')}. ${fix}` : problem;
}

/**
 * n8n moves an item to the error output only when its json has no keys but `error`, `message` and `details`
 * (an item-level `error` would work too, but n8n then cuts its json down to the message alone). So with the
 * error output the facts go under `details`, and n8n adds the input item's fields beside them.
 */
export function errorItem(
	context: IExecuteFunctions,
	error: NodeOperationError | NodeApiError,
	itemIndex: number,
): INodeExecutionData {
	const facts: JsonObject = {};
	if (runsAsAgentTool(context))
		return { json: { error: messageForAgent(error) }, pairedItem: { item: itemIndex } };
	if (typeof error.description === 'string' && error.description)
		facts.description = error.description;
	if (error instanceof NodeApiError && error.httpCode) facts.httpCode = error.httpCode;
	const toErrorOutput = context.getNode().onError === 'continueErrorOutput';
	const json: JsonObject = toErrorOutput
		? { error: error.message, details: facts }
		: { error: error.message, ...facts };
	return { json, pairedItem: { item: itemIndex } };
}
