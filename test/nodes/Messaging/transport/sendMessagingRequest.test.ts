import { NodeApiError } from 'n8n-workflow';
import type {
	IAdditionalCredentialOptions,
	IExecuteFunctions,
	IHttpRequestOptions,
	INode,
} from 'n8n-workflow';

import { failureError, type SendFailure } from '../../../../nodes/Messaging/transport/failures';
import type {
	MessagingRequest,
	SendSettings,
} from '../../../../nodes/Messaging/transport/messagingRequest';
import { sendMessagingRequest } from '../../../../nodes/Messaging/transport/sendMessagingRequest';
import type { MessagingEndpoint } from '../../../../nodes/Messaging/transport/endpoint';
import { messagingNode } from '../../../helpers/nodeFixtures';

/**
 * The transport against a fake of n8n's `helpers.httpRequestWithAuthentication` (n8n's, outside this
 * package): what it is asked to send, and what each kind of answer becomes. A failure is judged by what a
 * user and the retry policy see: the error's message, description and httpCode, and the failure's kind.
 */

const API_KEY = 'sk_test_transport_0123456789';
const endpoint: MessagingEndpoint = { baseUrl: 'https://api.example.com', apiKey: API_KEY };
const formSettings: SendSettings = { bodyEncoding: 'form', timeoutMs: 30000 };

const smsRequest: MessagingRequest = {
	path: '/v1/sms/send',
	fields: {
		to: '+919812345678',
		entity_id: '1201159876543210123',
		template_id: '1207161111111111111',
		content: '{"customer_name":"Asha K"}',
		callback_url: 'https://n8n.example.com/webhook/events?a=1&b=2',
	},
};

const whatsappRequest: MessagingRequest = {
	path: '/v1/whatsapp/send',
	fields: { to: '+919812345678', type: 'session', text: 'Hi & bye' },
};

interface HelperCall {
	self: unknown;
	credentialType: string;
	options: IHttpRequestOptions;
	credentialOptions: IAdditionalCredentialOptions | undefined;
	argumentCount: number;
}

type Answer = () => unknown;

function fakeContext(
	answer: Answer,
	node: INode = messagingNode({ resource: 'sms', operation: 'send' }),
) {
	const calls: HelperCall[] = [];
	const context = {
		getNode: () => node,
		helpers: {
			async httpRequestWithAuthentication(
				this: unknown,
				credentialType: string,
				options: IHttpRequestOptions,
				credentialOptions?: IAdditionalCredentialOptions,
			) {
				calls.push({
					self: this,
					credentialType,
					options,
					credentialOptions,
					argumentCount: arguments.length,
				});
				return answer();
			},
		},
	};
	return { context: context as unknown as IExecuteFunctions, calls };
}

const queued = { message_id: 'msg_01', status: 'queued', channel: 'sms' };
const answerWith =
	(statusCode: number, body?: unknown, headers: unknown = {}): Answer =>
	() => ({
		statusCode,
		headers,
		body,
	});

describe('the request handed to n8n', () => {
	test('form body: POST to the joined URL, named fields URL-encoded, full response kept, no status thrown', async () => {
		const { context, calls } = fakeContext(answerWith(200, queued));

		await sendMessagingRequest.call(context, endpoint, smsRequest, formSettings);

		expect(calls).toHaveLength(1);
		expect(calls[0].self).toBe(context);
		expect(calls[0].credentialType).toBe('messagingApi');
		expect(calls[0].options).toEqual({
			method: 'POST',
			url: 'https://api.example.com/v1/sms/send',
			timeout: 30000,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
			body:
				'to=%2B919812345678&entity_id=1201159876543210123&template_id=1207161111111111111' +
				'&content=%7B%22customer_name%22%3A%22Asha+K%22%7D' +
				'&callback_url=https%3A%2F%2Fn8n.example.com%2Fwebhook%2Fevents%3Fa%3D1%26b%3D2',
		});
		expect(calls[0].credentialOptions).toBeUndefined();
	});

	test('JSON body: the same fields as an object (object fields still JSON text), json: true', async () => {
		const { context, calls } = fakeContext(answerWith(200, queued));

		await sendMessagingRequest.call(context, endpoint, smsRequest, {
			bodyEncoding: 'json',
			timeoutMs: 30000,
		});

		expect(calls[0].options).toEqual({
			method: 'POST',
			url: 'https://api.example.com/v1/sms/send',
			timeout: 30000,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			json: true,
			headers: { accept: 'application/json', 'content-type': 'application/json' },
			body: {
				to: '+919812345678',
				entity_id: '1201159876543210123',
				template_id: '1207161111111111111',
				content: '{"customer_name":"Asha K"}',
				callback_url: 'https://n8n.example.com/webhook/events?a=1&b=2',
			},
		});
	});

	test('an Idempotency Key becomes the Idempotency-Key header; the timeout is the setting', async () => {
		const { context, calls } = fakeContext(
			answerWith(200, { ...queued, channel: 'whatsapp', status: 'sent' }),
		);

		await sendMessagingRequest.call(context, endpoint, whatsappRequest, {
			bodyEncoding: 'form',
			timeoutMs: 4500,
			idempotencyKey: 'order-1234-whatsapp',
		});

		expect(calls[0].options).toEqual({
			method: 'POST',
			url: 'https://api.example.com/v1/whatsapp/send',
			timeout: 4500,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			headers: {
				accept: 'application/json',
				'content-type': 'application/x-www-form-urlencoded',
				'Idempotency-Key': 'order-1234-whatsapp',
			},
			body: 'to=%2B919812345678&type=session&text=Hi+%26+bye',
		});
	});

	test.each([
		['https://api.example.com', '/v1/sms/send', 'https://api.example.com/v1/sms/send'],
		['https://api.example.com/', '/v1/sms/send', 'https://api.example.com/v1/sms/send'],
		['https://api.example.com///', '/v1/whatsapp/send', 'https://api.example.com/v1/whatsapp/send'],
		['  https://api.example.com/ \n', '/v1/sms/send', 'https://api.example.com/v1/sms/send'],
		[
			'http://127.0.0.1:8080/messaging/',
			'/v1/whatsapp/send',
			'http://127.0.0.1:8080/messaging/v1/whatsapp/send',
		],
	] as const)('base URL %j + %s → %s', async (baseUrl, path, url) => {
		const { context, calls } = fakeContext(answerWith(200, queued));
		const request: MessagingRequest = path === '/v1/sms/send' ? smsRequest : whatsappRequest;

		await sendMessagingRequest.call(context, { baseUrl }, request, formSettings);

		expect(calls[0].options.url).toBe(url);
	});

	test("the endpoint's credential options are handed to n8n on every send", async () => {
		const credentialOptions = {
			credentialsDecrypted: {
				id: '7',
				name: 'Prod messaging',
				type: 'messagingApi',
				data: { apiKey: API_KEY },
			},
		};
		const { context, calls } = fakeContext(answerWith(200, queued));

		await sendMessagingRequest.call(
			context,
			{ ...endpoint, credentialOptions },
			smsRequest,
			formSettings,
		);
		await sendMessagingRequest.call(
			context,
			{ ...endpoint, credentialOptions },
			smsRequest,
			formSettings,
		);

		expect(calls.map((call) => [call.credentialType, call.credentialOptions])).toEqual([
			['messagingApi', credentialOptions],
			['messagingApi', credentialOptions],
		]);
	});
});

describe('2xx with a valid acknowledgement → the acknowledgement as returned', () => {
	test.each([
		['200 with a JSON object', 200, queued, queued],
		[
			'201 with JSON text',
			201,
			'{"message_id":"msg_02","status":"queued","channel":"sms"}',
			{
				message_id: 'msg_02',
				status: 'queued',
				channel: 'sms',
			},
		],
		[
			'202 with a Buffer',
			202,
			Buffer.from('{"message_id":"wamid.9","status":"sent","channel":"whatsapp"}'),
			{
				message_id: 'wamid.9',
				status: 'sent',
				channel: 'whatsapp',
			},
		],
		[
			'200 with extra fields, kept',
			200,
			{ ...queued, segments: 2, cost: { amount: '0.12' } },
			{
				message_id: 'msg_01',
				status: 'queued',
				channel: 'sms',
				segments: 2,
				cost: { amount: '0.12' },
			},
		],
	] as const)('%s', async (_title, statusCode, body, expected) => {
		const { context, calls } = fakeContext(answerWith(statusCode, body));

		await expect(
			sendMessagingRequest.call(context, endpoint, smsRequest, formSettings),
		).resolves.toEqual({ acknowledgement: expected });
		expect(calls).toHaveLength(1);
	});
});

/** What the retry policy read of each failure, by the error a user reads of it. */
const failureBehind = new Map<NodeApiError, SendFailure>();
const classifiedAs = (error: NodeApiError) => {
	const { kind, retryAfter } = failureBehind.get(error)!;
	return retryAfter === undefined ? { kind } : { kind, retryAfter };
};

/** The failure the transport answered with, and the error the send loop words it as once the tries are over. */
async function failureOf(answer: Answer, settings: SendSettings = formSettings, itemIndex = 7) {
	const { context, calls } = fakeContext(answer);
	const sent = await sendMessagingRequest.call(context, endpoint, smsRequest, settings);
	expect(calls).toHaveLength(1);
	if (!('failure' in sent)) throw new Error(`expected a failure, got ${JSON.stringify(sent)}`);
	const error = failureError(context.getNode(), sent.failure, itemIndex, {
		timeoutMs: settings.timeoutMs,
		apiKey: endpoint.apiKey,
		idempotent: Boolean(settings.idempotencyKey),
	});
	failureBehind.set(error, sent.failure);
	expect(error).toBeInstanceOf(NodeApiError);
	expect(error.context.itemIndex).toBe(itemIndex);
	expect(error.node.name).toBe('Messaging');
	return error;
}

const NO_ACK_ADVICE =
	"Check that the credential's Base URL points at the Messaging API. The message may have been accepted, so it was not sent again: check with your provider before sending it again.";

describe('2xx without a valid acknowledgement → a final failure, never a success', () => {
	test.each([
		[
			'an empty object',
			200,
			{},
			'The Messaging API answered 200 without a valid acknowledgement (message_id, status, channel): {}',
		],
		[
			'an empty text body',
			200,
			'',
			'The Messaging API answered 200 without a valid acknowledgement (message_id, status, channel): (empty body)',
		],
		[
			'204 without a body',
			204,
			undefined,
			'The Messaging API answered 204 without a valid acknowledgement (message_id, status, channel): (empty body)',
		],
		[
			'no channel',
			200,
			{ message_id: 'msg_01', status: 'queued' },
			'The Messaging API answered 200 without a valid acknowledgement (message_id, status, channel): {"message_id":"msg_01","status":"queued"}',
		],
		[
			'a blank message_id',
			201,
			{ message_id: ' ', status: 'queued', channel: 'sms' },
			'The Messaging API answered 201 without a valid acknowledgement (message_id, status, channel): {"message_id":" ","status":"queued","channel":"sms"}',
		],
		[
			'a numeric message_id',
			200,
			{ message_id: 17, status: 'queued', channel: 'sms' },
			'The Messaging API answered 200 without a valid acknowledgement (message_id, status, channel): {"message_id":17,"status":"queued","channel":"sms"}',
		],
		[
			'an HTML page (a Base URL pointing at a web server)',
			200,
			'<html><body><h1>Welcome to nginx!</h1></body></html>',
			'The Messaging API answered 200 without a valid acknowledgement (message_id, status, channel): Welcome to nginx!',
		],
		[
			'a list of acknowledgements',
			200,
			[queued],
			'The Messaging API answered 200 without a valid acknowledgement (message_id, status, channel): [{"message_id":"msg_01","status":"queued","channel":"sms"}]',
		],
	] as const)('%s', async (_title, statusCode, body, message) => {
		const error = await failureOf(answerWith(statusCode, body));

		expect(error.message).toBe(message);
		expect(error.description).toBe(NO_ACK_ADVICE);
		expect(error.httpCode).toBe(String(statusCode));
		expect(classifiedAs(error)).toEqual({ kind: 'final' });
	});
});

const SET_KEY_ADVICE =
	'The message may have been accepted, so it was not sent again; set Options > Idempotency Key so the node can retry safely.';
const SAME_KEY_ADVICE =
	'The message may have been accepted; run the node again with the same Idempotency Key and it is sent at most once.';
const keyed: SendSettings = { ...formSettings, idempotencyKey: 'order-1234-sms' };

interface StatusCase {
	title: string;
	statusCode: number;
	headers?: Record<string, string>;
	body?: unknown;
	settings?: SendSettings;
	message: string;
	description: string;
	kind: Pick<SendFailure, 'kind' | 'retryAfter'>;
}

const statusCases: StatusCase[] = [
	{
		title: '400 with the provider message and field',
		statusCode: 400,
		body: { error: { code: 'missing_field', message: 'to is required', field: 'to' } },
		message: 'The Messaging API rejected the message (400): to is required',
		description: "Fix the field 'to' and run the node again.",
		kind: { kind: 'final' },
	},
	{
		title: '422 template_mismatch as JSON text',
		statusCode: 422,
		body: '{"error":{"code":"template_mismatch","message":"content.otp is not declared in template 1207161111111111111"}}',
		message:
			'The Messaging API rejected the message (422): content.otp is not declared in template 1207161111111111111',
		description:
			'Make the variables match the template registered with the provider: the same names (SMS) or the same number of header, body and button values (WhatsApp).',
		kind: { kind: 'final' },
	},
	{
		title: '422 with only a message',
		statusCode: 422,
		body: { message: 'Recipient is opted out' },
		message: 'The Messaging API rejected the message (422): Recipient is opted out',
		description:
			'Fix the field named in the message: template variables must match the registered template, and session messages need a window opened by the recipient in the last 24 hours (send a template otherwise).',
		kind: { kind: 'final' },
	},
	{
		title: '401 whose message echoes the API key: the key is masked',
		statusCode: 401,
		body: { error: { code: 'invalid_api_key', message: `Key ${API_KEY} is not valid` } },
		message: 'The Messaging API rejected the API key (401): Key *** is not valid',
		description:
			'Check the API Key in the Messaging API credential, and that the key may send on this channel.',
		kind: { kind: 'final' },
	},
	{
		title: '404 with a text body',
		statusCode: 404,
		body: 'Not Found',
		message: 'The Messaging API did not find what was asked for (404): Not Found',
		description:
			"Check the credential's Base URL (the API root, e.g. https://api.example.com, without /v1) and that the DLT Template ID or WhatsApp Template Name exists in your account.",
		kind: { kind: 'final' },
	},
	{
		title: '429 with Retry-After in seconds',
		statusCode: 429,
		headers: { 'Retry-After': '7' },
		body: { error: { code: 'rate_limited', message: 'Too many requests' } },
		message: 'The Messaging API is limiting the send rate (429): Too many requests',
		description:
			'Slow down: set Options > Max Messages per Second to the rate your provider allows (or lower it), or raise Options > Max Tries per Message. The provider asked to wait 7 s.',
		kind: { kind: 'rate_limited', retryAfter: '7' },
	},
	{
		title: '429 with a lower-case retry-after header and no body',
		statusCode: 429,
		headers: { 'retry-after': '12' },
		message: 'The Messaging API is limiting the send rate (429)',
		description:
			'Slow down: set Options > Max Messages per Second to the rate your provider allows (or lower it), or raise Options > Max Tries per Message. The provider asked to wait 12 s.',
		kind: { kind: 'rate_limited', retryAfter: '12' },
	},
	{
		title: '429 without Retry-After',
		statusCode: 429,
		message: 'The Messaging API is limiting the send rate (429)',
		description:
			'Slow down: set Options > Max Messages per Second to the rate your provider allows (or lower it), or raise Options > Max Tries per Message.',
		kind: { kind: 'rate_limited', retryAfter: undefined },
	},
	{
		title: '500 without an Idempotency Key',
		statusCode: 500,
		body: 'Internal Server Error',
		message: 'The Messaging API failed on its side (500): Internal Server Error',
		description: `This is a provider-side problem; try again later. ${SET_KEY_ADVICE}`,
		kind: { kind: 'maybe_processed' },
	},
	{
		title: '503 with an Idempotency Key',
		statusCode: 503,
		body: '<html><body><h1>503 Service Unavailable</h1></body></html>',
		settings: keyed,
		message: 'The Messaging API failed on its side (503): 503 Service Unavailable',
		description: `This is a provider-side problem; try again later. ${SAME_KEY_ADVICE}`,
		kind: { kind: 'maybe_processed' },
	},
];

describe('non-2xx answers → an error with the provider reason and what to do', () => {
	test.each(statusCases.map((statusCase) => [statusCase.title, statusCase] as const))(
		'%s',
		async (_title, statusCase) => {
			const error = await failureOf(
				answerWith(statusCase.statusCode, statusCase.body, statusCase.headers ?? {}),
				statusCase.settings,
			);

			expect(error.message).toBe(statusCase.message);
			expect(error.description).toBe(statusCase.description);
			expect(error.httpCode).toBe(String(statusCase.statusCode));
			expect(classifiedAs(error)).toEqual(statusCase.kind);
			expect(JSON.stringify(error)).not.toContain(API_KEY);
		},
	);

	test('a Retry-After HTTP date reaches the retry policy unchanged', async () => {
		const error = await failureOf(
			answerWith(429, undefined, { 'Retry-After': 'Wed, 21 Oct 2026 07:28:00 GMT' }),
		);

		expect(error.message).toBe('The Messaging API is limiting the send rate (429)');
		expect(classifiedAs(error)).toEqual({
			kind: 'rate_limited',
			retryAfter: 'Wed, 21 Oct 2026 07:28:00 GMT',
		});
	});
});

const networkError = (message: string, code?: string, extra: Record<string, unknown> = {}) =>
	Object.assign(new Error(message), code ? { code } : {}, extra);

interface ThrownCase {
	title: string;
	thrown: unknown;
	settings?: SendSettings;
	message: string;
	description: string;
	httpCode: string | null;
	kind: Pick<SendFailure, 'kind' | 'retryAfter'>;
}

const thrownCases: ThrownCase[] = [
	{
		title: 'an exception that is no network or HTTP failure: told as such, never retried',
		thrown: new TypeError(`Cannot read properties of undefined (reading 'apiKey') ${API_KEY}`),
		message: `Sending failed inside n8n, not on the network: Cannot read properties of undefined (reading 'apiKey') ***`,
		description:
			"It is no network or HTTP failure, so it was not retried. Check the Messaging API credential and the node's options; the message may or may not have reached the provider, so check with it before sending again.",
		httpCode: null,
		kind: { kind: 'final' },
	},
	{
		title: 'connection refused: nothing was sent',
		thrown: networkError('connect ECONNREFUSED 127.0.0.1:9', 'ECONNREFUSED'),
		message: 'Could not connect to the Messaging API',
		description:
			"Check the credential's Base URL and that the service is reachable from n8n. Nothing was sent.",
		httpCode: null,
		kind: { kind: 'not_sent' },
	},
	{
		title: 'unknown host, found along the cause chain',
		thrown: new Error('Request failed', {
			cause: networkError('getaddrinfo ENOTFOUND api.example.invalid', 'ENOTFOUND'),
		}),
		message: 'Could not connect to the Messaging API',
		description:
			"Check the credential's Base URL and that the service is reachable from n8n. Nothing was sent.",
		httpCode: null,
		kind: { kind: 'not_sent' },
	},
	{
		title: 'timeout: the message names the configured timeout',
		thrown: networkError('timeout of 4500ms exceeded', 'ECONNABORTED'),
		settings: { ...formSettings, timeoutMs: 4500 },
		message: 'The Messaging API did not answer within 4500 ms',
		description: `Raise Options > Timeout or try again later. ${SET_KEY_ADVICE}`,
		httpCode: null,
		kind: { kind: 'maybe_processed' },
	},
	{
		title: 'connection reset with an Idempotency Key',
		thrown: networkError('socket hang up', 'ECONNRESET'),
		settings: keyed,
		message: 'The connection to the Messaging API broke before it answered',
		description: `Try again later. ${SAME_KEY_ADVICE}`,
		httpCode: null,
		kind: { kind: 'maybe_processed' },
	},
	{
		title: 'an HTTP 429 thrown by the client despite ignoreHttpStatusErrors',
		thrown: networkError('Request failed with status code 429', 'ERR_BAD_REQUEST', {
			config: { headers: { Authorization: `Bearer ${API_KEY}` } },
			response: {
				status: 429,
				headers: { 'retry-after': '3' },
				data: { error: { message: 'Slow down' } },
			},
		}),
		message: 'The Messaging API is limiting the send rate (429): Slow down',
		description:
			'Slow down: set Options > Max Messages per Second to the rate your provider allows (or lower it), or raise Options > Max Tries per Message. The provider asked to wait 3 s.',
		httpCode: '429',
		kind: { kind: 'rate_limited', retryAfter: '3' },
	},
];

describe('thrown client errors → an error saying whether the message may have gone', () => {
	test.each(thrownCases.map((thrownCase) => [thrownCase.title, thrownCase] as const))(
		'%s',
		async (_title, thrownCase) => {
			const error = await failureOf(() => Promise.reject(thrownCase.thrown), thrownCase.settings);

			expect(error.message).toBe(thrownCase.message);
			expect(error.description).toBe(thrownCase.description);
			expect(error.httpCode).toBe(thrownCase.httpCode);
			expect(classifiedAs(error)).toEqual(thrownCase.kind);
		},
	);

	test('the client error, whose config holds the Authorization header, is not kept on the error', async () => {
		const thrown = networkError(`socket hang up (Bearer ${API_KEY})`, 'ECONNRESET', {
			config: { headers: { Authorization: `Bearer ${API_KEY}` } },
		});
		const error = await failureOf(() => Promise.reject(thrown));

		expect(error.message).toBe('The connection to the Messaging API broke before it answered');
		expect(error.cause).not.toBe(thrown);
		expect(
			[error.message, error.description, error.stack, JSON.stringify(error)].join('\n'),
		).not.toContain(API_KEY);
	});
});

describe('the provider budget', () => {
	const budgetHeaders = {
		'RateLimit-Limit': '100',
		'RateLimit-Remaining': '37',
		'RateLimit-Policy': '100;w=1',
	};

	test.each([
		['an acknowledgement', answerWith(200, queued, budgetHeaders)],
		[
			'a 429',
			answerWith(429, { error: { code: 'rate_limited', message: 'slow down' } }, budgetHeaders),
		],
		['a 422', answerWith(422, { error: { code: 'invalid_field', message: 'bad' } }, budgetHeaders)],
	])('is handed on from %s', async (_, answer) => {
		const { context } = fakeContext(answer);
		const told: unknown[] = [];
		await sendMessagingRequest.call(context, endpoint, smsRequest, formSettings, (budget) =>
			told.push(budget),
		);
		expect(told).toEqual([{ remaining: 37, quota: 100, windowSeconds: 1 }]);
	});

	test('is not made up when the provider sends no budget headers', async () => {
		const { context } = fakeContext(answerWith(200, queued, { 'Retry-After': '1' }));
		const told: unknown[] = [];
		await sendMessagingRequest.call(context, endpoint, smsRequest, formSettings, (budget) =>
			told.push(budget),
		);
		expect(told).toEqual([]);
	});
});
