import { NodeApiError } from 'n8n-workflow';
import type { INode, JsonObject } from 'n8n-workflow';

import type { ClassifiedFailure } from '../throughput/retryPolicy';
import { explain } from './failureAdvice';
import type { FailureContext } from './failureAdvice';
import { classifyFacts, redactSecret } from './failureFacts';
import type { FailureFacts } from './failureFacts';

/**
 * The one place failures become user-facing: built from plain facts so no client internals can leak. The facts
 * travel on the error, with the provider's words masked like the message, so the retry policy can classify it
 * and a final error can be rebuilt after retries.
 */
export class MessagingApiError extends NodeApiError {
	readonly facts: FailureFacts;

	constructor(node: INode, facts: FailureFacts, itemIndex: number, context: FailureContext) {
		const masked: FailureFacts = {
			...facts,
			providerMessage: redactSecret(facts.providerMessage, context.apiKey),
			providerField: redactSecret(facts.providerField, context.apiKey),
		};
		const { summary, whatToDo } = explain(masked, context);
		const message = masked.providerMessage ? `${summary}: ${masked.providerMessage}` : summary;
		const httpCode = facts.status === undefined ? undefined : String(facts.status);
		const sanitised: JsonObject = {
			message,
			...(httpCode ? { httpCode } : {}),
			...(masked.providerMessage ? { providerMessage: masked.providerMessage } : {}),
			...(facts.networkCode ? { networkError: facts.networkCode } : {}),
		};
		super(node, sanitised, { message, description: whatToDo, httpCode, itemIndex });
		// n8n tells node errors apart by name (it rethrows a NodeApiError as it is), and n8n's base error names
		// every error after its class, so this one keeps its parent's name.
		this.name = 'NodeApiError';
		this.facts = masked;
	}
}

/**
 * How the transport builds its errors. n8n's community-node lint (require-node-api-error) judges a `throw new …`
 * in a catch block by the class's name and accepts only NodeApiError and NodeOperationError, so it would refuse
 * `throw new MessagingApiError` though this is a NodeApiError.
 */
export function messagingApiError(
	node: INode,
	facts: FailureFacts,
	itemIndex: number,
	context: FailureContext,
): MessagingApiError {
	return new MessagingApiError(node, facts, itemIndex, context);
}

/** The retry policy's view of an error thrown by the transport; anything else is never retried. */
export function classifyMessagingFailure(error: unknown): ClassifiedFailure {
	const facts = error instanceof MessagingApiError ? error.facts : undefined;
	return facts ? classifyFacts(facts) : { kind: 'final' };
}

/** After retries, the final error says how many tries were made, so "429" reads as "still 429 after 3 tries". */
export function withTriesMade(
	error: unknown,
	node: INode,
	itemIndex: number,
	context: FailureContext,
): unknown {
	const facts = error instanceof MessagingApiError ? error.facts : undefined;
	if (!facts || !context.triesMade || context.triesMade < 2) return error;
	return messagingApiError(node, facts, itemIndex, context);
}
