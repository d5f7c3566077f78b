import { AUTOMATIC_START } from '../../../../nodes/Messaging/throughput/concurrencyTuning';
import { createManualClock, startSandbox, type Sandbox } from '../../../../sandbox';
import { recordNodeSleeps } from '../../../helpers/nodeClock';
import { formFields } from '../../../helpers/sandboxForTests';
import { loadWorkflowFixture, runWorkflow } from '../../../helpers/runWorkflow';

const workflow = loadWorkflowFixture('sms-send');
// More items than the first round trip sends, so some wait for what its answers say.
const CAMPAIGN = AUTOMATIC_START + 15;
const NOON_UTC = Date.UTC(2026, 10, 24, 12);

function orders(count: number) {
	return Array.from({ length: count }, (_, index) => ({
		json: {
			phone: `+9198200${String(index).padStart(5, '0')}`,
			name: `Customer ${index}`,
			orderId: String(2000 + index),
			eta: 'Tue',
		},
	}));
}

describe('a daily cap spent until midnight, 12 h away, through the n8n engine', () => {
	let sandbox: Sandbox;
	beforeEach(async () => {
		// The cap follows the sandbox clock: held at noon, the reset is always 12 h away.
		sandbox = await startSandbox({
			port: 0,
			lifecycle: null,
			clock: createManualClock(NOON_UTC),
			rateLimit: { dailyCap: 4 },
		});
	});
	afterEach(async () => await sandbox.close());

	const credentials = () => ({ baseUrl: sandbox.url, apiKey: sandbox.apiKey });

	test('with continue-on-fail: the sent items stay sent, the rest fail at once, unsent and unretried, saying when it resets', async () => {
		const node = recordNodeSleeps();
		const { outputs, error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: orders(CAMPAIGN),
			continueOnFail: true,
		}).finally(() => node.restore());

		expect(error).toBeUndefined();
		const output = outputs.Messaging;
		expect(output.map((item) => item.pairedItem)).toEqual(
			Array.from({ length: CAMPAIGN }, (_, item) => ({ item })),
		);
		const accepted = sandbox
			.requests()
			.filter((request) => request.response.status === 200)
			.map((request) => formFields(request.rawBody).to);
		expect(accepted).toHaveLength(4);
		output.forEach((item, index) => {
			if (accepted.includes(orders(CAMPAIGN)[index].json.phone))
				expect(item.json.status).toBe('queued');
			else
				expect(String(item.json.error)).toMatch(/budget for this API key is used up until .*12 h/);
		});

		const sentTo = sandbox.requests().map((request) => formFields(request.rawBody).to);
		expect(new Set(sentTo).size).toBe(sentTo.length);
		// Only the first round trip went out before the cap was known: the items after it were never sent.
		expect(sentTo.length).toBeLessThanOrEqual(AUTOMATIC_START);
		expect(node.sleeps.filter((ms) => ms >= 1000)).toEqual([]);
	});

	test('without continue-on-fail: the run stops with the reset in its error, having sent only what the cap allowed', async () => {
		const { error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: orders(8),
		});

		expect(error?.message).toMatch(/budget for this API key is used up until .*12 h/);
		expect(sandbox.messages()).toHaveLength(4);
	});
});
