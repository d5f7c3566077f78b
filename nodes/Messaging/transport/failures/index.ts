import { NodeApiError } from 'n8n-workflow';
import type { INode, JsonObject } from 'n8n-workflow';

import type { ClassifiedFailure } from '../../vocabulary/failureKind';
import { explain, type FailureContext } from './advice';
import {
	answeredFailureFacts,
	classifyFacts,
	readProviderMessage,
	redactSecret,
	thrownFailureFacts,
	type FailureFacts,
} from './facts';

/**
 * Failure handling, from a failed request to the error a user reads, and the one way in from outside this folder:
 * facts.ts copies plain facts out of an answer or a thrown error, advice.ts words them, retry.ts decides whether
 * to send again; this file joins them.
 */
export type { FailureContext } from './advice';
export type { FailureFacts } from './facts';
export { redactSecret } from './facts';
export { sendWithRetries, type RetryOutcome } from './retry';

/** A failed send as a value: what it was (for pacing and retries) and the facts its error is worded from. */
export interface SendFailure extends ClassifiedFailure {
	facts: FailureFacts;
}

function failureOf(facts: FailureFacts): SendFailure {
	return { ...classifyFacts(facts), facts };
}

/** The API answered with a failing status. */
export function answeredFailure(
	status: number,
	headers: unknown,
	body: unknown,
	secret?: string,
): SendFailure {
	return failureOf(answeredFailureFacts(status, headers, body, secret));
}

/** The request threw instead of answering (network, timeout, or n8n itself). */
export function thrownFailure(error: unknown, secret?: string): SendFailure {
	return failureOf(thrownFailureFacts(error, secret));
}

/** A 2xx that is not a real acknowledgement: the message may have gone out, so it is never sent again. */
export function invalidAcknowledgement(
	status: number,
	body: unknown,
	secret?: string,
): SendFailure {
	const providerMessage = readProviderMessage(body, secret).message ?? '(empty body)';
	return failureOf({ status, invalidAcknowledgement: true, providerMessage });
}

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
 * The one place failures become user-facing, once the tries are over: built from plain facts so no client
 * internals can leak. n8n's own NodeApiError, not a subclass: n8n routes node errors by their name
 * (workflow-execute's rethrowNodeError passes on only 'NodeApiError' and 'NodeOperationError').
 */
export function failureError(
	node: INode,
	failure: SendFailure,
	itemIndex: number,
	context: FailureContext,
): NodeApiError {
	const { facts } = failure;
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
	return new NodeApiError(node, sanitised, {
		message,
		description: whatToDo,
		httpCode,
		itemIndex,
	});
}
