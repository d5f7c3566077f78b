import { LONGEST_BUDGET_WAIT_MS } from '../../vocabulary/providerBudget';
import { parseRetryAfter, RETRY_AFTER_SECONDS } from '../../vocabulary/retryAfter';
import { classifyFacts } from './facts';
import type { FailureFacts } from './facts';

export interface FailureContext {
	timeoutMs: number;
	triesMade?: number;
	apiKey?: string;
	/** The request carried an Idempotency Key, so it was (or may safely be) sent again. */
	idempotent?: boolean;
	/** The credential test's empty send: no message could have gone out, and no template was named. */
	probe?: boolean;
}

/** What a user reads: the summary opens the error's message, what to do is its description. */
export interface Advice {
	summary: string;
	whatToDo: string;
}

const CHECK_BASE_URL =
	"Check the credential's Base URL (the API root, e.g. https://api.example.com, without /v1)";

type AdviceRule = (facts: FailureFacts, context: FailureContext) => Advice;

const MAYBE_SENT = 'The message may have been accepted, so it was not sent again';
const SET_KEY = 'set Options > Idempotency Key so the node can retry safely';
const SAME_KEY =
	'The message may have been accepted; run the node again with the same Idempotency Key and it is sent at most once';

/** Telling a user who already set a key to set one, or that nothing was resent when it was, would mislead. */
function maybeSentAdvice(context: FailureContext): string {
	if (context.probe) return 'Nothing was sent.';
	return context.idempotent ? `${SAME_KEY}.` : `${MAYBE_SENT}; ${SET_KEY}.`;
}

/** A Map, not an object: a provider code such as 'constructor' must not find an inherited property. */
const FIX_BY_PROVIDER_CODE = new Map<string, string>([
	[
		'session_window_closed',
		'The recipient has not written to you in the last 24 hours, so a session message is not allowed: send a template message instead (Message Type: Template; for Send and Wait for Response, a template whose URL buttons carry the answer links).',
	],
	[
		'template_mismatch',
		'Make the variables match the template registered with the provider: the same names (SMS) or the same number of header, body and button values (WhatsApp).',
	],
	[
		'template_not_found',
		'Check the DLT Entity ID and DLT Template ID, or the WhatsApp Template Name, against the templates approved in your account.',
	],
	[
		'idempotency_key_reused',
		'This Idempotency Key was already used for a different message. Make the key unique per message, e.g. from the order number and the channel.',
	],
]);

function invalidAcknowledgement(facts: FailureFacts): Advice {
	return {
		summary: `The Messaging API answered ${facts.status} without a valid acknowledgement (message_id, status, channel)`,
		whatToDo: `Check that the credential's Base URL points at the Messaging API. ${MAYBE_SENT}: check with your provider before sending it again.`,
	};
}

function notConnected(): Advice {
	return {
		summary: 'Could not connect to the Messaging API',
		whatToDo:
			"Check the credential's Base URL and that the service is reachable from n8n. Nothing was sent.",
	};
}

function timedOut(context: FailureContext): Advice {
	return {
		summary: `The Messaging API did not answer within ${context.timeoutMs} ms`,
		whatToDo: `Raise Options > Timeout or try again later. ${maybeSentAdvice(context)}`,
	};
}

function brokenConnection(context: FailureContext): Advice {
	return {
		summary: 'The connection to the Messaging API broke before it answered',
		whatToDo: `Try again later. ${maybeSentAdvice(context)}`,
	};
}

function unexpected(message: string): Advice {
	return {
		summary: `Sending failed inside n8n, not on the network: ${message}`,
		whatToDo:
			"It is no network or HTTP failure, so it was not retried. Check the Messaging API credential and the node's options; the message may or may not have reached the provider, so check with it before sending again.",
	};
}

/** No status came back: the request never left, ran out of time, lost its connection, or n8n itself failed. */
function noAnswer(facts: FailureFacts, context: FailureContext): Advice {
	if (facts.unexpectedError !== undefined) return unexpected(facts.unexpectedError);
	if (classifyFacts(facts).kind === 'not_sent') return notConnected();
	return facts.timedOut ? timedOut(context) : brokenConnection(context);
}

const rejectedKey: AdviceRule = (facts) => ({
	summary: `The Messaging API rejected the API key (${facts.status})`,
	whatToDo:
		'Check the API Key in the Messaging API credential, and that the key may send on this channel.',
});

/** Retry-After is seconds or an HTTP date; either reads as a sentence. */
function retryAfterAdvice(retryAfter: string | undefined): string {
	const value = retryAfter?.trim();
	if (!value) return '';
	return RETRY_AFTER_SECONDS.test(value)
		? ` The provider asked to wait ${value} s.`
		: ` The provider asked to wait until ${value}.`;
}

/** A wait the node does not make: a daily cap or a messaging tier, spent until a reset hours away. */
function resetTooFar(retryAfter: string | undefined): boolean {
	const waitMs = parseRetryAfter(retryAfter, Date.now());
	return waitMs !== undefined && waitMs > LONGEST_BUDGET_WAIT_MS;
}

function budgetSpent(retryAfter: string): Advice {
	const value = retryAfter.trim();
	const when = RETRY_AFTER_SECONDS.test(value)
		? `in ${Number((Number(value) / 3600).toFixed(1))} h`
		: `at ${value}`;
	return {
		summary: `The provider's budget for this API key is used up until a reset ${when} (429)`,
		whatToDo:
			'The node waits for a reset up to an hour away, so this message was not sent. Send it again after the reset, or ask the provider for a larger budget.',
	};
}

/** Statuses with advice of their own; any other status falls to provider-side (5xx) or rejected (4xx). */
const ADVICE_BY_STATUS: Partial<Record<number, AdviceRule>> = {
	401: rejectedKey,
	403: rejectedKey,
	404: (_facts, context) => ({
		summary: 'The Messaging API did not find what was asked for (404)',
		whatToDo: context.probe
			? `${CHECK_BASE_URL}.`
			: `${CHECK_BASE_URL} and that the DLT Template ID or WhatsApp Template Name exists in your account.`,
	}),
	409: (facts) => ({
		summary: `The Messaging API refused the message as a conflict with an earlier request (${facts.status})`,
		whatToDo:
			'It was not sent again: the message may already have been sent, or a request with the same Idempotency Key may still be in progress. Check with your provider before sending it again, and give every different message its own Idempotency Key.',
	}),
	413: () => ({
		summary: 'The Messaging API refused the request as too large (413)',
		whatToDo: 'Shorten the message text or variable values.',
	}),
	429: (facts, context) => {
		if (resetTooFar(facts.retryAfter)) return budgetSpent(facts.retryAfter!);
		const tries = context.triesMade
			? ` after ${context.triesMade} ${context.triesMade === 1 ? 'try' : 'tries'}`
			: '';
		return {
			summary: `The Messaging API is limiting the send rate (429)${tries}`,
			whatToDo: `Slow down: set Options > Max Messages per Second to the rate your provider allows (or lower it), or raise Options > Max Tries per Message.${retryAfterAdvice(facts.retryAfter)}`,
		};
	},
};

function providerSide(status: number, context: FailureContext): Advice {
	return {
		summary: `The Messaging API failed on its side (${status})`,
		whatToDo: `This is a provider-side problem; try again later. ${maybeSentAdvice(context)}`,
	};
}

/** Any other refusal: the provider's error code when it is a known one, else the field it named. */
function rejected(facts: FailureFacts, status: number): Advice {
	const summary = `The Messaging API rejected the message (${status})`;
	const knownFix = facts.providerCode ? FIX_BY_PROVIDER_CODE.get(facts.providerCode) : undefined;
	if (knownFix) return { summary, whatToDo: knownFix };
	const field = facts.providerField
		? `the field '${facts.providerField}'`
		: facts.providerMessage
			? 'the field named in the message'
			: "this item's fields (the provider gave no reason)";
	return {
		summary,
		whatToDo:
			status === 422
				? `Fix ${field}: template variables must match the registered template, and session messages need a window opened by the recipient in the last 24 hours (send a template otherwise).`
				: `Fix ${field} and run the node again.`,
	};
}

/** The words for a failure, chosen from its facts alone. */
export function explain(facts: FailureFacts, context: FailureContext): Advice {
	const { status } = facts;
	if (facts.invalidAcknowledgement) return invalidAcknowledgement(facts);
	if (status === undefined) return noAnswer(facts, context);
	const rule = ADVICE_BY_STATUS[status];
	if (rule) return rule(facts, context);
	return status >= 500 ? providerSide(status, context) : rejected(facts, status);
}
