import { recordNodeSleeps } from '../../../helpers/nodeClock';
import { formFields, useSandbox } from '../../../helpers/sandboxForTests';
import { loadWorkflowFixture, runWorkflow } from '../../../helpers/runWorkflow';

const sandbox = useSandbox();
const workflow = loadWorkflowFixture('sms-send');

function orders(count: number) {
	return Array.from({ length: count }, (_, index) => ({
		json: {
			phone: `+9198100${String(index).padStart(5, '0')}`,
			name: `Customer ${index}`,
			orderId: String(1000 + index),
			eta: 'Mon',
		},
	}));
}

function credentials() {
	return { baseUrl: sandbox().url, apiKey: sandbox().apiKey };
}

describe('throughput and 429 handling through the n8n engine', () => {
	test('a 429 is waited out as Retry-After says, then the item succeeds', async () => {
		// Without the budget headers: a node that sees the budget spent waits for its reset and never draws the 429.
		sandbox().configure({ rateLimit: { perSecond: 0.5, burst: 1, budgetHeaders: false } });
		const node = recordNodeSleeps();

		const { outputs, error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: orders(2),
			parameters: { Messaging: { options: { maxConcurrency: 1 } } },
		}).finally(() => node.restore());

		expect(error).toBeUndefined();
		const requests = sandbox().requests();
		expect(requests.map((request) => request.response.status)).toEqual([200, 429, 200]);
		expect(requests.map((request) => formFields(request.rawBody).to)).toEqual([
			'+919810000000',
			'+919810000001',
			'+919810000001',
		]);
		const retryAfterMs =
			Number(
				(requests[1].response.body as { error: { message: string } }).error.message.match(
					/Retry after (\d+) s/,
				)![1],
			) * 1000;
		// The node waited what Retry-After asked, and the sandbox's own bucket found that enough: the retry got a 200.
		expect(node.sleeps).toContain(retryAfterMs);
		expect(outputs.Messaging.map((item) => item.json.status)).toEqual(['queued', 'queued']);
		expect(outputs.Messaging.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	test('when 429s outlast Max Tries per Message the item fails with a clear error and nothing is duplicated', async () => {
		// Without the budget headers: a node that can see the budget paces itself out of this corner.
		sandbox().configure({ rateLimit: { perSecond: 1, burst: 1, budgetHeaders: false } });

		const { outputs, error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: orders(3),
			parameters: { Messaging: { options: { maxConcurrency: 3, maxTries429: 2 } } },
			continueOnFail: true,
		});

		expect(error).toBeUndefined();
		const output = outputs.Messaging;
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		const failed = output.filter((item) => item.json.error);
		expect(failed).toHaveLength(1);
		expect(failed[0].json).toEqual({
			error:
				'The Messaging API is limiting the send rate (429) after 2 tries: Too many requests: this API key may send 1 per second. Retry after 1 s.',
			description: expect.stringContaining('Max Messages per Second'),
			httpCode: '429',
		});

		const requests = sandbox().requests();
		expect(requests).toHaveLength(5);
		const accepted = requests
			.filter((request) => request.response.status === 200)
			.map((request) => formFields(request.rawBody).to);
		expect(new Set(accepted).size).toBe(accepted.length);
		expect(accepted).toHaveLength(2);
		const failedPhone = orders(3)[(failed[0].pairedItem as { item: number }).item].json.phone;
		expect(accepted).not.toContain(failedPhone);
	});

	test('Max Messages per Second keeps a rate-limited provider from ever answering 429', async () => {
		// The provider allows exactly the node's Max Messages per Second, measured by the sandbox's token bucket, so
		// the count of 429s (none) is the pacing check: sending even 13 a second would spend the burst and be refused.
		// Burst 3 absorbs event-loop stalls on a loaded machine; without the node's limiter 10 requests would burst past it.
		sandbox().configure({ rateLimit: { perSecond: 10, burst: 3 } });

		const { outputs, error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: orders(10),
			parameters: { Messaging: { options: { maxConcurrency: 5, maxPerSecond: 10 } } },
		});

		expect(error).toBeUndefined();
		expect(
			sandbox()
				.requests()
				.every((request) => request.response.status === 200),
		).toBe(true);
		expect(sandbox().requests()).toHaveLength(10);
		expect(outputs.Messaging).toHaveLength(10);
	});

	test('output order and pairing match the input at concurrency 8, whatever finishes first', async () => {
		sandbox().configure({ latency: { fixedMs: 2, jitterMs: 40 } });
		const items = orders(40);

		const { outputs, error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items,
			parameters: { Messaging: { options: { maxConcurrency: 8 } } },
		});

		expect(error).toBeUndefined();
		const output = outputs.Messaging;
		expect(output.map((item) => item.pairedItem)).toEqual(
			items.map((_, index) => ({ item: index })),
		);
		const recipientByMessage = new Map(
			sandbox()
				.messages()
				.map((message) => [message.id, message.to]),
		);
		expect(output.map((item) => recipientByMessage.get(item.json.message_id as string))).toEqual(
			items.map((item) => item.json.phone),
		);
		const arrival = sandbox()
			.requests()
			.map((request) => formFields(request.rawBody).to);
		expect(arrival).toHaveLength(40);
		expect(new Set(arrival).size).toBe(40);
	});

	test('an Idempotency Key is sent per item as the Idempotency-Key header', async () => {
		const { error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: orders(2),
			parameters: { Messaging: { options: { idempotencyKey: '=order-{{ $json.orderId }}' } } },
		});

		expect(error).toBeUndefined();
		expect(
			sandbox()
				.requests()
				.map((request) => request.headers['idempotency-key'])
				.sort(),
		).toEqual(['order-1000', 'order-1001']);
	});
});
