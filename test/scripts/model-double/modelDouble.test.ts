import { ModelDoubleAdmin } from '../../../scripts/model-double/admin';
import { startModelDouble, type ModelDouble } from '../../../scripts/model-double/server';

const SMS_TOOL = {
	name: 'Send_SMS',
	description: 'Sends one SMS',
	parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] },
};

let double: ModelDouble;
let admin: ModelDoubleAdmin;

beforeEach(async () => {
	double = await startModelDouble(0);
	admin = new ModelDoubleAdmin(double.baseUrl);
});

afterEach(async () => {
	await double.stop();
});

/** The parts of either API's answer these tests read. */
interface DoubleAnswer {
	output: Array<{
		type: string;
		name?: string;
		arguments?: string;
		call_id?: string;
		content?: Array<{ text: string }>;
	}>;
	choices: Array<{
		message: {
			content: string | null;
			tool_calls: Array<{ id: string; function: { name: string; arguments: string } }>;
		};
		finish_reason: string;
	}>;
	error: { message: string };
	data: Array<{ id: string }>;
}

async function post(path: string, body: unknown): Promise<{ status: number; json: DoubleAnswer }> {
	const response = await fetch(`${double.openAiBaseUrl}${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	return { status: response.status, json: (await response.json()) as DoubleAnswer };
}

describe('the Responses API', () => {
	const responsesTools = [{ type: 'function', ...SMS_TOOL }];

	it('calls the scripted tool, then answers with what the tool returned', async () => {
		await admin.play({ calls: [{ tool: 'Send_SMS', arguments: { to: '+919812345678' } }] });
		const user = { type: 'message', role: 'user', content: 'Text Asha' };

		const first = await post('/responses', { model: 'm', input: [user], tools: responsesTools });
		expect(first.status).toBe(200);
		const [call] = first.json.output;
		expect(call).toMatchObject({ type: 'function_call', name: 'Send_SMS' });
		expect(JSON.parse(call.arguments ?? '')).toEqual({ to: '+919812345678' });

		const ack = '[{"message_id":"m1","status":"queued","channel":"sms"}]';
		const second = await post('/responses', {
			model: 'm',
			input: [user, call, { type: 'function_call_output', call_id: call.call_id, output: ack }],
			tools: responsesTools,
		});
		expect(second.json.output).toEqual([
			expect.objectContaining({
				type: 'message',
				role: 'assistant',
				content: [{ type: 'output_text', text: `Tool results: ${ack}`, annotations: [] }],
			}),
		]);

		const recorded = await admin.requests();
		expect(recorded.map((request) => request.path)).toEqual(['/v1/responses', '/v1/responses']);
		expect(recorded[0].conversation?.tools).toEqual([SMS_TOOL]);
		expect(recorded[1].conversation?.toolResults).toEqual([{ callId: call.call_id, output: ack }]);
	});

	it('makes the scripted calls one per request, counting only results after the last user message', async () => {
		await admin.play({
			calls: [
				{ tool: 'Send_SMS', arguments: { to: 'first' } },
				{ tool: 'Send_SMS', arguments: { to: 'second' } },
			],
			answer: 'Both sent.',
		});
		const result = (id: string) => ({ type: 'function_call_output', call_id: id, output: '[]' });
		const earlierTurn = [{ role: 'user', content: 'before' }, result('old')];
		const now = { role: 'user', content: [{ type: 'input_text', text: 'now' }] };
		const turns = [
			[...earlierTurn, now],
			[...earlierTurn, now, result('a')],
			[...earlierTurn, now, result('a'), result('b')],
		];
		const outputs = [];
		for (const input of turns)
			outputs.push((await post('/responses', { input, tools: responsesTools })).json.output[0]);
		expect(outputs.map((item) => item.arguments && JSON.parse(item.arguments).to)).toEqual([
			'first',
			'second',
			undefined,
		]);
		expect(outputs[2].content?.[0].text).toBe('Both sent.');
	});

	it('refuses a script whose tool n8n did not offer, naming the tools it did offer', async () => {
		await admin.play({ calls: [{ tool: 'Send_WhatsApp', arguments: {} }] });
		const answer = await post('/responses', { input: 'hi', tools: responsesTools });
		expect(answer.status).toBe(400);
		expect(answer.json.error.message).toBe(
			'the script calls "Send_WhatsApp", but n8n offered these tools: Send_SMS',
		);
	});

	it('without a script, echoes the last user message and names the earlier ones it was given', async () => {
		const answer = await post('/responses', {
			input: [
				{ role: 'system', content: 'You are helpful' },
				{ role: 'user', content: 'Where is my order?' },
				{ role: 'assistant', content: [{ type: 'output_text', text: 'Checking' }] },
				{ role: 'user', content: 'Any news?' },
			],
		});
		expect(answer.json.output[0].content?.[0].text).toBe(
			'Thanks for your message: "Any news?". Earlier you wrote: "Where is my order?".',
		);
		const [recorded] = await admin.requests();
		expect(recorded.conversation?.system).toEqual(['You are helpful']);
	});

	it('refuses to stream instead of answering in a shape the client would not read', async () => {
		const answer = await post('/responses', { input: 'hi', stream: true });
		expect(answer.status).toBe(400);
		expect(answer.json.error.message).toMatch(/does not stream/);
	});
});

describe('Chat Completions', () => {
	const chatTools = [{ type: 'function', function: SMS_TOOL }];

	it('calls the scripted tool with tool_calls, then answers with the tool message it got', async () => {
		await admin.play({ calls: [{ tool: 'Send_SMS', arguments: { to: '+919812345678' } }] });
		const user = { role: 'user', content: 'Text Asha' };
		const first = await post('/chat/completions', { messages: [user], tools: chatTools });
		const { message, finish_reason } = first.json.choices[0];
		expect(finish_reason).toBe('tool_calls');
		const [call] = message.tool_calls;
		expect(call.function).toEqual({ name: 'Send_SMS', arguments: '{"to":"+919812345678"}' });

		const second = await post('/chat/completions', {
			messages: [
				user,
				message,
				{ role: 'tool', tool_call_id: call.id, content: '[{"error":"x"}]' },
			],
			tools: chatTools,
		});
		expect(second.json.choices[0]).toMatchObject({
			message: { role: 'assistant', content: 'Tool results: [{"error":"x"}]' },
			finish_reason: 'stop',
		});
		const recorded = await admin.requests();
		expect(recorded[0].conversation?.tools).toEqual([SMS_TOOL]);
	});

	it('lists one model, for the credential test and the model list', async () => {
		const response = await fetch(`${double.openAiBaseUrl}/models`);
		const listed = (await response.json()) as DoubleAnswer;
		expect(listed.data.map((model) => model.id)).toEqual(['model-double']);
	});
});
