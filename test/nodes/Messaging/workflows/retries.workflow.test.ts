import { closedPortUrl } from '../../../../sandbox';
import { recordNodeSleeps } from '../../../helpers/nodeClock';
import { formFields, useSandbox } from '../../../helpers/sandboxForTests';
import { loadWorkflowFixture, runWorkflow } from '../../../helpers/runWorkflow';

const sandbox = useSandbox();
const workflow = loadWorkflowFixture('sms-send');

function order(phone: string) {
	return [{ json: { phone, name: 'Asha', orderId: '77', eta: 'Fri' } }];
}

function credentials() {
	return { baseUrl: sandbox().url, apiKey: sandbox().apiKey };
}

function messagesTo(phone: string) {
	return sandbox()
		.messages()
		.filter((message) => message.to === phone);
}

const withKey = { options: { idempotencyKey: '=order-{{ $json.orderId }}-{{ $json.phone }}' } };

describe('retries that may resend a message', () => {
	test('with an Idempotency Key a 5xx is retried and the message is sent once', async () => {
		const phone = '+919820000001';
		sandbox().addFault({
			match: { to: phone, times: 1 },
			action: { status: 503, bodyKind: 'json' },
		});

		const { outputs, error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: order(phone),
			parameters: { Messaging: withKey },
		});

		expect(error).toBeUndefined();
		const requests = sandbox().requests();
		expect(requests.map((request) => request.response.status)).toEqual([503, 200]);
		expect(requests.map((request) => request.headers['idempotency-key'])).toEqual([
			`order-77-${phone}`,
			`order-77-${phone}`,
		]);
		expect(requests[0].rawBody).toBe(requests[1].rawBody);
		expect(messagesTo(phone)).toHaveLength(1);
		expect(outputs.Messaging[0].json.message_id).toBe(messagesTo(phone)[0].id);
	});

	test('without an Idempotency Key a 5xx is not retried: the item fails saying what to do', async () => {
		const phone = '+919820000002';
		sandbox().addFault({
			match: { to: phone, times: 1 },
			action: { status: 502, bodyKind: 'html' },
		});

		const { outputs, error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: order(phone),
			continueOnFail: true,
		});

		expect(error).toBeUndefined();
		expect(sandbox().requests()).toHaveLength(1);
		expect(messagesTo(phone)).toHaveLength(0);
		expect(outputs.Messaging).toEqual([
			{
				json: {
					error:
						'The Messaging API failed on its side (502): 502 Bad Gateway 502 Bad Gateway nginx',
					description: expect.stringContaining(
						'set Options > Idempotency Key so the node can retry safely',
					),
					httpCode: '502',
				},
				pairedItem: { item: 0 },
			},
		]);
	});

	test('with an Idempotency Key a connection reset after the provider accepted is retried and replayed, not resent', async () => {
		const phone = '+919820000003';
		sandbox().addFault({ match: { to: phone, times: 1 }, action: { reset: 'after-body' } });

		const { outputs, error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: order(phone),
			parameters: { Messaging: withKey },
		});

		expect(error).toBeUndefined();
		expect(sandbox().requests()).toHaveLength(2);
		const [accepted] = messagesTo(phone);
		expect(messagesTo(phone)).toHaveLength(1);
		expect(accepted.acceptedUnderFault).toBe('reset-after-body');
		expect(outputs.Messaging[0].json).toEqual(accepted.acknowledgement);
	});

	test('without an Idempotency Key a reset after the body is never resent: at most once', async () => {
		const phone = '+919820000004';
		sandbox().addFault({ match: { to: phone, times: 1 }, action: { reset: 'after-body' } });

		const { outputs, error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: order(phone),
			continueOnFail: true,
		});

		expect(error).toBeUndefined();
		expect(sandbox().requests()).toHaveLength(1);
		expect(messagesTo(phone)).toHaveLength(1);
		expect(outputs.Messaging[0].json.error).toBe(
			'The connection to the Messaging API broke before it answered',
		);
		expect(outputs.Messaging[0].json.description).toContain('may have been accepted');
	});

	test('an answer slower than the timeout fails the item without a resend when there is no key', async () => {
		const phone = '+919820000005';
		sandbox().addFault({ match: { to: phone, times: 1 }, action: { delayMs: 1500 } });

		const { error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: order(phone),
			parameters: { Messaging: { options: { timeout: 1000 } } },
		});

		expect(error?.message).toBe('The Messaging API did not answer within 1000 ms');
		expect(error?.description).toContain('Raise Options > Timeout');
		expect(sandbox().requests()).toHaveLength(1);
		expect(messagesTo(phone)).toHaveLength(1);
	});

	test('with an Idempotency Key an answer slower than the timeout is retried and replayed, not resent', async () => {
		const phone = '+919820000008';
		sandbox().addFault({ match: { to: phone, times: 1 }, action: { delayMs: 1500 } });

		const { outputs, error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: order(phone),
			parameters: { Messaging: { options: { ...withKey.options, timeout: 1000 } } },
		});

		expect(error).toBeUndefined();
		expect(sandbox().requests()).toHaveLength(2);
		expect(messagesTo(phone)).toHaveLength(1);
		expect(outputs.Messaging[0].json).toEqual(messagesTo(phone)[0].acknowledgement);
	});

	test('a refused connection is safe to retry: retried after a backoff, then reported with nothing sent', async () => {
		const node = recordNodeSleeps();
		const { error } = await runWorkflow({
			workflow,
			credentials: { baseUrl: await closedPortUrl(), apiKey: sandbox().apiKey },
			items: order('+919820000006'),
			parameters: { Messaging: { options: { maxTries429: 2 } } },
		}).finally(() => node.restore());

		expect(error?.message).toBe('Could not connect to the Messaging API');
		expect(error?.description).toContain('Nothing was sent');
		// One backoff between the two tries, as the node chose it (half to all of the 500 ms first step).
		expect(node.sleeps).toHaveLength(1);
		expect(node.sleeps[0]).toBeGreaterThanOrEqual(250);
		expect(node.sleeps[0]).toBeLessThanOrEqual(500);
		expect(JSON.stringify(error)).not.toContain(sandbox().apiKey);
	});

	test('a 2xx without a message id is an error, not a silent success', async () => {
		const phone = '+919820000007';
		sandbox().addFault({
			match: { to: phone, times: 1 },
			action: { status: 200, bodyKind: 'ack-without-id' },
		});

		const { error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: order(phone),
			parameters: { Messaging: withKey },
		});

		expect(error?.message).toBe(
			'The Messaging API answered 200 without a valid acknowledgement (message_id, status, channel): {"status":"queued","channel":"sms"}',
		);
		expect(
			sandbox()
				.requests()
				.map((request) => formFields(request.rawBody).to),
		).toEqual([phone]);
	});
});
