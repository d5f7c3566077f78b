import { NodeApiError } from 'n8n-workflow';
import type { INode, JsonObject } from 'n8n-workflow';

import type { ClassifiedFailure } from '../throughput/retryPolicy';
import { redactSecret } from './failureFacts';
import type { FailureFacts } from './failureFacts';

const NOT_SENT_CODES = new Set([
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'ENETDOWN',
	'EADDRNOTAVAIL',
	'UND_ERR_CONNECT_TIMEOUT',
	'ERR_INVALID_URL',
]);

export function classifyFacts(facts: FailureFacts): ClassifiedFailure {
	if (facts.invalidAcknowledgement) return { kind: 'final' };
	if (facts.status === 429) return { kind: 'rate_limited', retryAfter: facts.retryAfter };
	if (facts.status !== undefined) return { kind: facts.status >= 500 ? 'maybe_processed' : 'final' };
	if (facts.networkCode && NOT_SENT_CODES.has(facts.networkCode)) return { kind: 'not_sent' };
	if (facts.networkCode === 'ERR_CANCELED') return { kind: 'final' };
	return { kind: 'maybe_processed' };
}

const factsByError = new WeakMap<object, FailureFacts>();

/** The retry policy's view of an error thrown by the transport; anything else is never retried. */
export function classifyMessagingFailure(error: unknown): ClassifiedFailure {
	const facts = error && typeof error === 'object' ? factsByError.get(error) : undefined;
	return facts ? classifyFacts(facts) : { kind: 'final' };
}

export interface FailureContext {
	timeoutMs: number;
	triesMade?: number;
	apiKey?: string;
	/** The request carried an Idempotency Key, so it was (or may safely be) sent again. */
	idempotent?: boolean;
}

const MAYBE_SENT = 'The message may have been accepted, so it was not sent again';
const SET_KEY = 'set Options > Idempotency Key so the node can retry safely';
const SAME_KEY =
	'The message may have been accepted; run the node again with the same Idempotency Key and it is sent at most once';

/** Telling a user who already set a key to set one, or that nothing was resent when it was, would mislead. */
function maybeSentAdvice(context: FailureContext): string {
	return context.idempotent ? `${SAME_KEY}.` : `${MAYBE_SENT}; ${SET_KEY}.`;
}

const FIX_BY_PROVIDER_CODE: Record<string, string> = {
	session_window_closed:
		'The recipient has not written to you in the last 24 hours, so a session message is not allowed: send a template message instead (Message Type: Template).',
	template_mismatch:
		'Make the variables match the template registered with the provider: the same names (SMS) or the same number of header, body and button values (WhatsApp).',
	template_not_found:
		'Check the DLT Entity ID and DLT Template ID, or the WhatsApp Template Name, against the templates approved in your account.',
	idempotency_key_reused:
		'This Idempotency Key was already used for a different message. Make the key unique per message, e.g. from the order number and the channel.',
};

function explain(facts: FailureFacts, context: FailureContext): { summary: string; whatToDo: string } {
	const { status } = facts;
	if (facts.invalidAcknowledgement) {
		return {
			summary: `The Messaging API answered ${status} without a valid acknowledgement (message_id, status, channel)`,
			whatToDo: `Check that the credential's Base URL points at the Messaging API. ${MAYBE_SENT}: check with your provider before sending it again.`,
		};
	}
	if (status === undefined) {
		if (classifyFacts(facts).kind === 'not_sent') {
			return {
				summary: 'Could not connect to the Messaging API',
				whatToDo: "Check the credential's Base URL and that the service is reachable from n8n. Nothing was sent.",
			};
		}
		if (facts.timedOut) {
			return {
				summary: `The Messaging API did not answer within ${context.timeoutMs} ms`,
				whatToDo: `Raise Options > Timeout or try again later. ${maybeSentAdvice(context)}`,
			};
		}
		return {
			summary: 'The connection to the Messaging API broke before it answered',
			whatToDo: `Try again later. ${maybeSentAdvice(context)}`,
		};
	}
	if (status === 401 || status === 403) {
		return {
			summary: `The Messaging API rejected the API key (${status})`,
			whatToDo: 'Check the API Key in the Messaging API credential, and that the key may send on this channel.',
		};
	}
	if (status === 404) {
		return {
			summary: 'The Messaging API did not find what was asked for (404)',
			whatToDo:
				"Check the credential's Base URL (the API root, e.g. https://api.example.com, without /v1) and that the DLT Template ID or WhatsApp Template Name exists in your account.",
		};
	}
	if (status === 409) {
		return {
			summary: `The Messaging API refused the message as a conflict with an earlier request (${status})`,
			whatToDo:
				'It was not sent again: the message may already have been sent, or a request with the same Idempotency Key may still be in progress. Check with your provider before sending it again, and give every different message its own Idempotency Key.',
		};
	}
	if (status === 413) {
		return {
			summary: 'The Messaging API refused the request as too large (413)',
			whatToDo: 'Shorten the message text or variable values.',
		};
	}
	if (status === 429) {
		const tries = context.triesMade ? ` after ${context.triesMade} ${context.triesMade === 1 ? 'try' : 'tries'}` : '';
		return {
			summary: `The Messaging API is limiting the send rate (429)${tries}`,
			whatToDo: `Slow down: lower Options > Max Messages per Second or Max Concurrent Requests, or raise Max Tries on 429.${facts.retryAfter ? ` The provider asked to wait ${facts.retryAfter} s.` : ''}`,
		};
	}
	if (status >= 500) {
		return {
			summary: `The Messaging API failed on its side (${status})`,
			whatToDo: `This is a provider-side problem; try again later. ${maybeSentAdvice(context)}`,
		};
	}
	const knownFix = facts.providerCode ? FIX_BY_PROVIDER_CODE[facts.providerCode] : undefined;
	if (knownFix) return { summary: `The Messaging API rejected the message (${status})`, whatToDo: knownFix };
	const field = facts.providerField
		? `the field '${facts.providerField}'`
		: facts.providerMessage
			? 'the field named in the message'
			: "this item's fields (the provider gave no reason)";
	return {
		summary: `The Messaging API rejected the message (${status})`,
		whatToDo:
			status === 422
				? `Fix ${field}: template variables must match the registered template, and session messages need a window opened by the recipient in the last 24 hours (send a template otherwise).`
				: `Fix ${field} and run the node again.`,
	};
}

/** The one place failures become user-facing: built from plain facts so no client internals can leak. */
export function messagingApiError(
	node: INode,
	facts: FailureFacts,
	itemIndex: number,
	context: FailureContext,
): NodeApiError {
	const providerMessage = redactSecret(facts.providerMessage, context.apiKey);
	const { summary, whatToDo } = explain(
		{ ...facts, providerField: redactSecret(facts.providerField, context.apiKey) },
		context,
	);
	const message = providerMessage ? `${summary}: ${providerMessage}` : summary;
	const httpCode = facts.status === undefined ? undefined : String(facts.status);
	const sanitised: JsonObject = {
		message,
		...(httpCode ? { httpCode } : {}),
		...(providerMessage ? { providerMessage } : {}),
		...(facts.networkCode ? { networkError: facts.networkCode } : {}),
	};
	const error = new NodeApiError(node, sanitised, { message, description: whatToDo, httpCode, itemIndex });
	factsByError.set(error, facts);
	return error;
}

/** After retries, the final error says how many tries were made, so "429" reads as "still 429 after 3 tries". */
export function withTriesMade(error: unknown, node: INode, itemIndex: number, context: FailureContext): unknown {
	const facts = error && typeof error === 'object' ? factsByError.get(error) : undefined;
	if (!facts || !context.triesMade || context.triesMade < 2) return error;
	return messagingApiError(node, facts, itemIndex, context);
}
