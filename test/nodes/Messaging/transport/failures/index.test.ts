import { inspect } from 'node:util';

import { NodeApiError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';

import {
	answeredFailure,
	failureError,
	invalidAcknowledgement,
	thrownFailure,
	type FailureContext,
	type FailureFacts,
} from '../../../../../nodes/Messaging/transport/failures';
import { classifyFacts } from '../../../../../nodes/Messaging/transport/failures/facts';

const node: INode = {
	id: '1',
	name: 'Messaging',
	type: 'n8n-nodes-messaging.messaging',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};
const apiKey = 'sk_live_secret_0123456789';
const context = { timeoutMs: 30000, apiKey };

/** The error a user reads once the tries are over, from the facts of the last failure. */
const errorFor = (
	errorNode: INode,
	facts: FailureFacts,
	itemIndex: number,
	failureContext: FailureContext,
) => failureError(errorNode, { ...classifyFacts(facts), facts }, itemIndex, failureContext);

describe('failure classification for the retry policy', () => {
	test.each([
		[
			{ status: 429, retryAfter: '2' },
			{ kind: 'rate_limited', retryAfter: '2' },
		],
		[{ status: 500 }, { kind: 'maybe_processed' }],
		[{ status: 503 }, { kind: 'maybe_processed' }],
		[{ status: 400 }, { kind: 'final' }],
		[{ status: 401 }, { kind: 'final' }],
		[{ status: 422 }, { kind: 'final' }],
		[{ status: 200, invalidAcknowledgement: true }, { kind: 'final' }],
		[{ networkCode: 'ECONNREFUSED' }, { kind: 'not_sent' }],
		[{ networkCode: 'ENOTFOUND' }, { kind: 'not_sent' }],
		[{ networkCode: 'ECONNRESET' }, { kind: 'maybe_processed' }],
		[{ networkCode: 'ECONNABORTED', timedOut: true }, { kind: 'maybe_processed' }],
		[{ networkCode: 'ERR_CANCELED' }, { kind: 'final' }],
		[{}, { kind: 'maybe_processed' }],
	])('%j is %j', (facts, expected) => {
		expect(classifyFacts(facts)).toEqual(expected);
	});

	test('a failed send is a value: its kind for pacing and retries, beside the facts its words come from', () => {
		expect(answeredFailure(429, { 'retry-after': '2' }, {}, apiKey)).toMatchObject({
			kind: 'rate_limited',
			retryAfter: '2',
			facts: { status: 429, retryAfter: '2' },
		});
		expect(thrownFailure(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toEqual({
			kind: 'not_sent',
			facts: { networkCode: 'ECONNREFUSED', timedOut: false },
		});
		expect(invalidAcknowledgement(200, '')).toEqual({
			kind: 'final',
			facts: { status: 200, invalidAcknowledgement: true, providerMessage: '(empty body)' },
		});
	});
});

describe('failureError', () => {
	test.each([
		[
			{ status: 401, providerMessage: 'The API key is not valid.' },
			'The Messaging API rejected the API key (401): The API key is not valid.',
			'Check the API Key',
		],
		[{ status: 403 }, 'The Messaging API rejected the API key (403)', 'Check the API Key'],
		[
			{ status: 404, providerMessage: 'No such template' },
			'The Messaging API did not find what was asked for (404): No such template',
			"credential's Base URL",
		],
		[
			{ status: 422, providerMessage: 'Variables do not match', providerField: 'content' },
			'The Messaging API rejected the message (422): Variables do not match',
			"Fix the field 'content'",
		],
		[
			{
				status: 422,
				providerMessage: 'No open 24-hour session',
				providerCode: 'session_window_closed',
			},
			'The Messaging API rejected the message (422): No open 24-hour session',
			'send a template message instead',
		],
		[
			{ status: 422, providerMessage: 'Key reused', providerCode: 'idempotency_key_reused' },
			'The Messaging API rejected the message (422): Key reused',
			'Make the key unique per message',
		],
		[
			{ status: 429, retryAfter: '5' },
			'The Messaging API is limiting the send rate (429)',
			'Max Messages per Second',
		],
		[
			{ status: 502, providerMessage: 'Bad Gateway' },
			'The Messaging API failed on its side (502): Bad Gateway',
			'Idempotency Key',
		],
		[{ networkCode: 'ECONNREFUSED' }, 'Could not connect to the Messaging API', 'Nothing was sent'],
		[
			{ networkCode: 'ECONNABORTED', timedOut: true },
			'The Messaging API did not answer within 30000 ms',
			'Raise Options > Timeout',
		],
		[
			{ networkCode: 'ECONNRESET' },
			'The connection to the Messaging API broke before it answered',
			'may have been accepted',
		],
		[
			{ status: 200, invalidAcknowledgement: true, providerMessage: '{"ok":true}' },
			'The Messaging API answered 200 without a valid acknowledgement (message_id, status, channel): {"ok":true}',
			'check with your provider',
		],
	])('%j', (facts: FailureFacts, message, advice) => {
		const error = errorFor(node, facts, 4, context);
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe(message);
		expect(error.description).toContain(advice);
		expect(error.context.itemIndex).toBe(4);
		expect(error.httpCode).toBe(facts.status === undefined ? null : String(facts.status));
	});

	test.each([
		[
			{ status: 409 },
			{},
			'It was not sent again: the message may already have been sent, or a request with the same Idempotency Key may still be in progress. Check with your provider before sending it again, and give every different message its own Idempotency Key.',
		],
		[{ status: 413 }, {}, 'Shorten the message text or variable values.'],
		[
			{ status: 400, providerMessage: 'to is invalid' },
			{},
			'Fix the field named in the message and run the node again.',
		],
		[
			{ status: 418 },
			{},
			"Fix this item's fields (the provider gave no reason) and run the node again.",
		],
		[
			{ status: 422, providerCode: 'constructor' },
			{},
			"Fix this item's fields (the provider gave no reason): template variables must match the registered template, and session messages need a window opened by the recipient in the last 24 hours (send a template otherwise).",
		],
		[
			{ status: 503 },
			{},
			'This is a provider-side problem; try again later. The message may have been accepted, so it was not sent again; set Options > Idempotency Key so the node can retry safely.',
		],
		[
			{ networkCode: 'ECONNRESET' },
			{ idempotent: true },
			'Try again later. The message may have been accepted; run the node again with the same Idempotency Key and it is sent at most once.',
		],
	])('%j, %j: the whole advice', (facts: FailureFacts, extra, description) => {
		expect(errorFor(node, facts, 0, { ...context, ...extra }).description).toBe(description);
	});

	test("is n8n's own NodeApiError, by class and by name, and carries no facts of its own", () => {
		const error = errorFor(node, { status: 429, retryAfter: '2' }, 1, context);
		expect(Object.getPrototypeOf(error)).toBe(NodeApiError.prototype);
		expect(error.name).toBe('NodeApiError');
		expect(JSON.stringify(error)).not.toContain('retryAfter');
	});

	test('the API key never appears, even when a provider echoes it', () => {
		const error = errorFor(
			node,
			{ status: 422, providerMessage: `Key ${apiKey} is revoked`, providerField: `key_${apiKey}` },
			0,
			context,
		);
		const everything = [
			error.message,
			error.description,
			error.stack,
			JSON.stringify(error),
			JSON.stringify(error.cause ?? null),
			inspect(error, { depth: null }),
		].join('\n');
		expect(everything).not.toContain(apiKey);
		expect(error.message).toBe('The Messaging API rejected the message (422): Key *** is revoked');
		expect(error.description).toContain("Fix the field 'key_***'");
		expect(error.cause).toBeUndefined();
		expect(
			errorFor(node, { status: 401, providerMessage: `Key ${apiKey} is revoked` }, 0, context)
				.message,
		).toBe('The Messaging API rejected the API key (401): Key *** is revoked');
	});

	test.each([
		['1.5', ' The provider asked to wait 1.5 s.'],
		['  7 ', ' The provider asked to wait 7 s.'],
		['   ', ''],
	])('a Retry-After of %p reads as the retry policy reads it', (retryAfter, sentence) => {
		const error = errorFor(node, { status: 429, retryAfter }, 0, context);
		expect(error.description).toBe(
			`Slow down: set Options > Max Messages per Second to the rate your provider allows (or lower it), or raise Options > Max Tries per Message.${sentence}`,
		);
	});

	test('a 429 whose Retry-After is beyond an hour says the budget is used up until the reset, and that nothing was sent', () => {
		const error = errorFor(node, { status: 429, retryAfter: '36000' }, 0, context);
		expect(error.message).toBe(
			"The provider's budget for this API key is used up until a reset in 10 h (429)",
		);
		expect(error.description).toBe(
			'The node waits for a reset up to an hour away, so this message was not sent. Send it again after the reset, or ask the provider for a larger budget.',
		);
	});

	test('a Retry-After given as an HTTP date reads as a time to wait until', () => {
		const date = 'Wed, 21 Oct 2026 07:28:00 GMT';
		const error = errorFor(node, { status: 429, retryAfter: date }, 0, context);
		expect(error.description).toBe(
			`Slow down: set Options > Max Messages per Second to the rate your provider allows (or lower it), or raise Options > Max Tries per Message. The provider asked to wait until ${date}.`,
		);
	});

	test('after retries the error says how many tries were made', () => {
		const facts = { status: 429, retryAfter: '1' };
		const final = errorFor(node, facts, 2, { ...context, triesMade: 3 });
		expect(final.message).toBe('The Messaging API is limiting the send rate (429) after 3 tries');
		expect(final.description).toContain('The provider asked to wait 1 s.');
		expect(errorFor(node, facts, 2, context).message).toBe(
			'The Messaging API is limiting the send rate (429)',
		);
	});
});
