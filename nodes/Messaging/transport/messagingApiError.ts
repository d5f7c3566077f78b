import { NodeApiError } from 'n8n-workflow';
import type { INode, JsonObject } from 'n8n-workflow';

import type { ClassifiedFailure } from '../throughput/retryPolicy';
import { explain } from './failureAdvice';
import type { FailureContext } from './failureAdvice';
import { classifyFacts, redactSecret } from './failureFacts';
import type { FailureFacts } from './failureFacts';

/** What a user reads of a failure, with the provider's words masked like everything else. */
export interface DescribedFailure {
	facts: FailureFacts;
	message: string;
	whatToDo: string;
	httpCode?: string;
}

export function describeFailure(facts: FailureFacts, context: FailureContext): DescribedFailure {
	const masked: FailureFacts = {
		...facts,
		providerMessage: redactSecret(facts.providerMessage, context.apiKey),
		providerField: redactSecret(facts.providerField, context.apiKey),
	};
	const { summary, whatToDo } = explain(masked, context);
	const message = masked.providerMessage ? `${summary}: ${masked.providerMessage}` : summary;
	const httpCode = facts.status === undefined ? undefined : String(facts.status);
	return { facts: masked, message, whatToDo, httpCode };
}

/**
 * n8n's own NodeApiError, not a subclass: n8n routes node errors by their name (workflow-execute's rethrowNodeError
 * passes on only 'NodeApiError' and 'NodeOperationError'). The facts the retry policy classifies by stay beside
 * the error rather than on it, so nothing of them reaches the execution data.
 */
const factsByError = new WeakMap<NodeApiError, FailureFacts>();

/** The one place failures become user-facing: built from plain facts so no client internals can leak. */
export function messagingApiError(
	node: INode,
	facts: FailureFacts,
	itemIndex: number,
	context: FailureContext,
): NodeApiError {
	const described = describeFailure(facts, context);
	const { message, whatToDo, httpCode } = described;
	const sanitised: JsonObject = {
		message,
		...(httpCode ? { httpCode } : {}),
		...(described.facts.providerMessage
			? { providerMessage: described.facts.providerMessage }
			: {}),
		...(facts.networkCode ? { networkError: facts.networkCode } : {}),
	};
	const error = new NodeApiError(node, sanitised, {
		message,
		description: whatToDo,
		httpCode,
		itemIndex,
	});
	factsByError.set(error, described.facts);
	return error;
}

/** The facts a transport error was built from; undefined for any other error. */
export function failureFactsOf(error: unknown): FailureFacts | undefined {
	return error instanceof NodeApiError ? factsByError.get(error) : undefined;
}

/** The retry policy's view of an error thrown by the transport; anything else is never retried. */
export function classifyMessagingFailure(error: unknown): ClassifiedFailure {
	const facts = failureFactsOf(error);
	return facts ? classifyFacts(facts) : { kind: 'final' };
}

/** After retries, the final error says how many tries were made, so "429" reads as "still 429 after 3 tries". */
export function withTriesMade(
	error: unknown,
	node: INode,
	itemIndex: number,
	context: FailureContext,
): unknown {
	const facts = failureFactsOf(error);
	if (!facts || !context.triesMade || context.triesMade < 2) return error;
	return messagingApiError(node, facts, itemIndex, context);
}
