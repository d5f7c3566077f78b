import { formFields, useSandbox } from '../../../helpers/sandboxForTests';
import { loadWorkflowFixture, runWorkflow } from '../../../helpers/runWorkflow';

/**
 * The router's own contract, through n8n's engine against the sandbox: which operation runs, that every item is
 * checked before any is sent, that results keep their input slots, and that the credential is only read when
 * there is something to send.
 */
const sandbox = useSandbox();
const workflow = loadWorkflowFixture('sms-send');

function row(phone: string, orderId: string) {
	return { json: { phone, name: `Customer ${orderId}`, orderId, eta: 'Mon' } };
}

function credentials() {
	return { baseUrl: sandbox().url, apiKey: sandbox().apiKey };
}

describe('resolving the operation', () => {
	test.each([
		{
			resource: 'sms',
			operation: 'schedule',
			expected: 'The resource "sms" has no operation "schedule"',
		},
		{
			resource: 'whatsapp',
			operation: 'toString',
			expected: 'The resource "whatsapp" has no operation "toString"',
		},
		{
			resource: 'email',
			operation: 'send',
			expected: 'The resource "email" has no operation "(none)"',
		},
		{
			resource: 'constructor',
			operation: 'send',
			expected: 'The resource "constructor" has no operation "(none)"',
		},
		// n8n drops the Operation of a resource the node does not offer, so the router sees none.
	])(
		'$resource → $operation is refused before anything is sent',
		async ({ resource, operation, expected }) => {
			const { error } = await runWorkflow({
				workflow,
				credentials: credentials(),
				items: [row('+919812345601', '1')],
				parameters: { Messaging: { resource, operation } },
				continueOnFail: true,
			});
			expect(error?.message).toBe(expected);
			expect(error?.description).toBe(
				'Choose SMS or WhatsApp as Resource, and Send (or, for WhatsApp, Send and Wait for Response) as Operation.',
			);
			expect(sandbox().requests()).toHaveLength(0);
		},
	);
});

describe('the send path', () => {
	test('results keep their input slots when later items are answered first', async () => {
		const rows = ['1', '2', '3', '4', '5', '6'].map((id) => row(`+91981234560${id}`, id));
		// The first two recipients answer slowly, so four later items finish before them.
		for (const to of ['+919812345601', '+919812345602']) {
			sandbox().addFault({ match: { to, times: 1 }, action: { delayMs: 300 } });
		}
		const { outputs, error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: rows,
			parameters: { Messaging: { options: { maxConcurrency: 6 } } },
		});
		expect(error).toBeUndefined();
		const answeredTo = new Map(
			sandbox()
				.requests()
				.map((request) => [
					(request.response.body as { message_id: string }).message_id,
					formFields(request.rawBody).to,
				]),
		);
		expect(answeredTo.size).toBe(rows.length);
		expect(outputs.Messaging.map((item) => answeredTo.get(item.json.message_id as string))).toEqual(
			rows.map((item) => item.json.phone),
		);
		expect(outputs.Messaging.map((item) => item.pairedItem)).toEqual(
			rows.map((_, item) => ({ item })),
		);
	});

	test('without continue on fail, the first refused item stops the sends that have not started', async () => {
		const rows = ['1', '2', '3', '4'].map((id) => row(`+91981234560${id}`, id));
		sandbox().addFault({
			match: { to: '+919812345602' },
			action: { status: 400, bodyKind: 'json' },
		});
		const { error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: rows,
			parameters: { Messaging: { options: { maxConcurrency: 1 } } },
		});
		expect(error?.message).toMatch(/^The Messaging API rejected the message \(400\)/);
		expect((error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(1);
		expect(
			sandbox()
				.requests()
				.map((request) => formFields(request.rawBody).to),
		).toEqual(['+919812345601', '+919812345602']);
	});

	test('when every item fails its checks, the credential is not read and each item says why', async () => {
		const { outputs, error } = await runWorkflow({
			workflow,
			credentials: { baseUrl: 'not a url', apiKey: sandbox().apiKey },
			items: [row('98123 4560', '1'), row('', '2')],
			continueOnFail: true,
		});
		expect(error).toBeUndefined();
		expect(outputs.Messaging.map((item) => item.json.error)).toEqual([
			`Item 0: 'To' "98123 4560" has no country code`,
			expect.stringMatching(/^Item 1: 'To' /),
		]);
		expect(sandbox().requests()).toHaveLength(0);
	});

	test('with something to send, a credential without a valid Base URL fails the run before any request', async () => {
		const { error } = await runWorkflow({
			workflow,
			credentials: { baseUrl: 'not a url', apiKey: sandbox().apiKey },
			items: [row('+919812345601', '1')],
			continueOnFail: true,
		});
		expect(error?.message).toBe('The Messaging API credential has no valid Base URL');
		expect(sandbox().requests()).toHaveLength(0);
	});
});
