import { buildResumeUrlSuffix, generateUrlSignature, prepareUrlForSigning } from 'n8n-core';
import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions, IHttpRequestOptions, INodeParameters } from 'n8n-workflow';

import { ItemParameters } from '../../../../../nodes/Messaging/actions/common/itemParameters';
import { readSendSettings } from '../../../../../nodes/Messaging/actions/common/sendSettings';
import type { PrepareRequest } from '../../../../../nodes/Messaging/actions/types';
import { sendMessagingRequest } from '../../../../../nodes/Messaging/transport/sendMessagingRequest';
import { messagingNode } from '../../../../helpers/nodeFixtures';

/**
 * An operation followed to the wire the way the router sends it (the operation's prepare, then the item's send
 * settings, then the transport). Only n8n's own parts are faked: parameter reading and the HTTP helper.
 */

export type Parameters = Record<string, unknown>;

export interface SentRequest {
	credentialType: string;
	options: IHttpRequestOptions;
}

/** What the fake HTTP helper answers: the API's acknowledgement as n8n's full response. */
export interface HelperAnswer {
	statusCode: number;
	headers: Record<string, string>;
	body: unknown;
}

export interface SendCase {
	title: string;
	parameters: Parameters;
	/** Every body field exactly as the API receives it; the JSON-encoded field decoded from its text. */
	body: Record<string, unknown>;
	encoding?: 'form' | 'json';
	idempotencyKey?: string;
	timeout?: number;
}

export interface BadCase {
	title: string;
	parameters: Parameters;
	itemIndex: number;
	message: string;
	description: string;
}

/** Where the fake n8n serves waiting webhooks, and the execution the operation runs in. */
export const WAITING_BASE = 'https://n8n.example.com/webhook-waiting';
export const EXECUTION_ID = '231';
const SIGNING_SECRET = 'test-hmac-secret';

/** n8n-core's own signing of a resume link (getSignedResumeUrl), with a fixed secret and execution. */
export function signedResumeUrl(nodeId: string, query: Record<string, string>): string {
	const url = new URL(`${WAITING_BASE}${buildResumeUrlSuffix(EXECUTION_ID, nodeId)}`);
	for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
	url.searchParams.set(
		'signature',
		generateUrlSignature(prepareUrlForSigning(url), SIGNING_SECRET),
	);
	return url.toString();
}

/** n8n's side of one node run: getNodeParameter reads (dotted) paths of `parameters`, the HTTP helper records. */
function fakeContext(parameters: Parameters, answer: HelperAnswer) {
	const node = messagingNode(parameters as INodeParameters);
	const sent: SentRequest[] = [];
	const context = {
		getNode: () => node,
		getSignedResumeUrl: (query: Record<string, string> = {}) => signedResumeUrl(node.id, query),
		getNodeParameter(name: string, _itemIndex: number, fallback?: unknown) {
			const value = name
				.split('.')
				.reduce<unknown>((current, key) => (current as Parameters | undefined)?.[key], parameters);
			return value === undefined ? fallback : value;
		},
		helpers: {
			async httpRequestWithAuthentication(credentialType: string, options: IHttpRequestOptions) {
				sent.push({ credentialType, options });
				return answer;
			},
		},
	};
	return { context: context as unknown as IExecuteFunctions, sent };
}

export interface OperationUnderTest {
	prepare: PrepareRequest;
	baseUrl: string;
	/** Where the request must go, as the operation's path and as the full URL. */
	path: string;
	url: string;
	/** The body field that travels as JSON-encoded text. */
	jsonField: string;
	answer: HelperAnswer;
	/** What the operation must return for `answer`. */
	acknowledgement: Record<string, unknown>;
}

export function operationHarness({
	prepare,
	baseUrl,
	path,
	url,
	jsonField,
	answer,
	acknowledgement,
}: OperationUnderTest) {
	async function sendThrough(context: IExecuteFunctions, itemIndex: number) {
		const itemParameters = new ItemParameters(context);
		const { request, wait } = prepare(itemParameters, itemIndex);
		const settings = readSendSettings(itemParameters, itemIndex);
		const answer = await sendMessagingRequest.call(context, { baseUrl }, request, settings);
		const acknowledgement = 'acknowledgement' in answer ? answer.acknowledgement : answer;
		return { request, wait, acknowledgement };
	}

	return {
		/** prepare → settings → transport for one item; what was sent is recorded. */
		async sendItem(parameters: Parameters, itemIndex = 0) {
			const { context, sent } = fakeContext(parameters, answer);
			return { ...(await sendThrough(context, itemIndex)), sent };
		},

		/** One request, exactly as `sendCase` describes it, and the API's acknowledgement returned. */
		async expectSent(sendCase: SendCase) {
			const { context, sent } = fakeContext(sendCase.parameters, answer);
			const result = await sendThrough(context, 0);
			expect(result.request.path).toBe(path);
			expect(Object.values(result.request.fields).every((value) => typeof value === 'string')).toBe(
				true,
			);
			expect(sent).toHaveLength(1);
			const [{ credentialType, options }] = sent;
			expect(credentialType).toBe('messagingApi');
			expect(options.method).toBe('POST');
			expect(options.url).toBe(url);
			expect(options.timeout).toBe(sendCase.timeout ?? 30000);
			const encoding = sendCase.encoding ?? 'form';
			expect(options.headers).toEqual({
				accept: 'application/json',
				'content-type':
					encoding === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
				...(sendCase.idempotencyKey === undefined
					? {}
					: { 'Idempotency-Key': sendCase.idempotencyKey }),
			});
			expect(readWireBody(options, jsonField)).toEqual(sendCase.body);
			expect(result.acknowledgement).toEqual(acknowledgement);
		},

		/** The item is refused with exactly the message, fix and item index of `badCase`, and nothing is sent. */
		async expectRefused(badCase: BadCase) {
			const { context, sent } = fakeContext(badCase.parameters, answer);
			const thrown = await sendThrough(context, badCase.itemIndex).then(
				() => undefined,
				(error: unknown) => error,
			);
			expect(thrown).toBeInstanceOf(NodeOperationError);
			const error = thrown as NodeOperationError;
			expect(error.message).toBe(badCase.message);
			expect(error.description).toBe(badCase.description);
			expect(error.context.itemIndex).toBe(badCase.itemIndex);
			expect(error.node?.name).toBe('Messaging');
			expect(sent).toHaveLength(0);
		},
	};
}

/** The body as the API reads it, with `jsonField` (JSON-encoded text on the wire) decoded for comparison. */
export function readWireBody(
	options: IHttpRequestOptions,
	jsonField: string,
): Record<string, unknown> {
	const contentType = (options.headers as Record<string, string>)['content-type'];
	let fields: Record<string, unknown>;
	if (contentType === 'application/x-www-form-urlencoded') {
		expect(typeof options.body).toBe('string');
		const params = new URLSearchParams(options.body as string);
		fields = Object.fromEntries(params);
		expect([...params.keys()]).toHaveLength(Object.keys(fields).length);
	} else {
		expect(contentType).toBe('application/json');
		fields = options.body as Record<string, unknown>;
	}
	if (!(jsonField in fields)) return fields;
	expect(typeof fields[jsonField]).toBe('string');
	return { ...fields, [jsonField]: JSON.parse(fields[jsonField] as string) };
}
