import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';

export function asNodeError(
	context: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeOperationError | NodeApiError {
	if (error instanceof NodeOperationError || error instanceof NodeApiError) return error;
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
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
	if (typeof error.description === 'string' && error.description)
		facts.description = error.description;
	if (error instanceof NodeApiError && error.httpCode) facts.httpCode = error.httpCode;
	const toErrorOutput = context.getNode().onError === 'continueErrorOutput';
	const json: JsonObject = toErrorOutput
		? { error: error.message, details: facts }
		: { error: error.message, ...facts };
	return { json, pairedItem: { item: itemIndex } };
}
