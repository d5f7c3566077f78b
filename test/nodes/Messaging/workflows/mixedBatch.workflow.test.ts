import { formFields, useSandbox } from '../../../helpers/sandboxForTests';
import { loadWorkflowFixture, runWorkflow } from '../../../helpers/runWorkflow';

const sandbox = useSandbox();
const workflow = loadWorkflowFixture('sms-send');
const templateFromItem = { templateId: '={{ $json.templateId ?? "1207161111111111111" }}' };

const batch = [
	{ json: { phone: '+919812345601', name: 'Asha', orderId: '1', eta: 'Mon' } },
	{ json: { phone: '98123 4560', name: 'Ravi', orderId: '2', eta: 'Tue' } },
	{
		json: {
			phone: '+919812345603',
			name: 'Meera',
			orderId: '3',
			eta: 'Wed',
			templateId: '1207169999999999999',
		},
	},
	{ json: { phone: '+919812345604', name: 'Kiran', orderId: '4', eta: 'Thu' } },
];

function credentials() {
	return { baseUrl: sandbox().url, apiKey: sandbox().apiKey };
}

describe('a batch with bad items', () => {
	test('under continueOnFail every item keeps its place and pairing; only locally valid items are sent', async () => {
		const { outputs, error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: batch,
			parameters: { Messaging: templateFromItem },
			continueOnFail: true,
		});

		expect(error).toBeUndefined();
		const output = outputs.Messaging;
		expect(output).toHaveLength(4);
		expect(output.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
			{ item: 3 },
		]);

		expect(output[0].json).toMatchObject({ status: 'queued', channel: 'sms' });
		expect(output[1].json).toEqual({
			error: `Item 1: 'To' "98123 4560" has no country code`,
			description: expect.stringContaining('Default Country Code'),
		});
		expect(output[2].json).toEqual({
			error: expect.stringMatching(/^The Messaging API did not find what was asked for \(404\)/),
			description: expect.stringContaining('DLT Template ID'),
			httpCode: '404',
		});
		expect(output[3].json).toMatchObject({ status: 'queued', channel: 'sms' });

		const sentTo = sandbox()
			.requests()
			.map((request) => formFields(request.rawBody).to)
			.sort();
		expect(sentTo).toEqual(['+919812345601', '+919812345603', '+919812345604']);
		const accepted = sandbox()
			.requests()
			.filter((request) => request.response.status === 200);
		expect(
			accepted
				.map((request) => (request.response.body as { message_id: string }).message_id)
				.sort(),
		).toEqual([output[0].json.message_id, output[3].json.message_id].sort());
	});

	test('without continueOnFail an invalid item stops the run before anything is sent', async () => {
		const { outputs, error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: batch,
			parameters: { Messaging: templateFromItem },
		});

		expect(sandbox().requests()).toHaveLength(0);
		expect(outputs.Messaging).toBeUndefined();
		expect(error?.message).toBe(`Item 1: 'To' "98123 4560" has no country code`);
		expect(error?.description).toContain('Default Country Code');
		expect((error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(1);
	});

	test('without continueOnFail a provider refusal fails the run with that item named', async () => {
		const valid = [batch[0], batch[2], batch[3]];
		const { error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: valid,
			parameters: { Messaging: { ...templateFromItem, options: { maxConcurrency: 1 } } },
		});

		expect(error?.message).toMatch(/\(404\)/);
		expect((error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(1);
		expect(
			sandbox()
				.requests()
				.map((request) => formFields(request.rawBody).to),
		).toEqual(['+919812345601', '+919812345603']);
	});
});
