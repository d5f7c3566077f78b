import { useSandbox } from '../../../helpers/sandboxForTests';
import { loadWorkflowFixture, runWorkflow } from '../../../helpers/runWorkflow';

const sandbox = useSandbox();
const workflow = loadWorkflowFixture('sms-send');
const items = [
	{ json: { phone: '+919812345678', name: 'Asha', orderId: '1', eta: 'Mon', key: 'order-1' } },
	{ json: { phone: '+919812345679', name: 'Ravi', orderId: '2', eta: 'Tue', key: 'заказ-2' } },
];

function credentials() {
	return { baseUrl: sandbox().url, apiKey: sandbox().apiKey };
}

describe('bad options are refused before anything is sent', () => {
	test.each([
		[
			{ maxConcurrency: -1 },
			"Item 0: 'Options > Max Concurrent Requests' is -1, but it must be a number from 0 to 100",
		],
		[
			{ maxConcurrency: 500 },
			"Item 0: 'Options > Max Concurrent Requests' is 500, but it must be a number from 0 to 100",
		],
		[
			{ maxPerSecond: -1 },
			"Item 0: 'Options > Max Messages per Second' is -1, but it must be a number of at least 0",
		],
		[
			{ maxTries429: 11 },
			"Item 0: 'Options > Max Tries per Message' is 11, but it must be a number from 1 to 10",
		],
		[
			{ timeout: '={{ "soon" }}' },
			"Item 0: 'Options > Timeout' is soon, but it must be a number from 1000 to 600000",
		],
	])('%j', async (options, message) => {
		const { error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items,
			parameters: { Messaging: { options } },
		});

		expect(error?.message).toBe(message);
		expect(error?.description).toContain('remove the option to use the default');
		expect(sandbox().requests()).toHaveLength(0);
	});

	test('an Idempotency Key that cannot travel as a header fails only its own item under continueOnFail', async () => {
		const { outputs, error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items,
			parameters: { Messaging: { options: { idempotencyKey: '={{ $json.key }}' } } },
			continueOnFail: true,
		});

		expect(error).toBeUndefined();
		expect(outputs.Messaging[0].json.status).toBe('queued');
		expect(outputs.Messaging[1]).toEqual({
			json: {
				error:
					"Item 1: 'Options > Idempotency Key' must be text of at most 255 printable ASCII characters",
				description: expect.stringContaining('HTTP header'),
			},
			pairedItem: { item: 1 },
		});
		expect(
			sandbox()
				.requests()
				.map((request) => request.headers['idempotency-key']),
		).toEqual(['order-1']);
	});
});
