import { formFields, useSandbox } from '../../../helpers/sandboxForTests';
import { loadWorkflowFixture, runWorkflow } from '../../../helpers/runWorkflow';

const sandbox = useSandbox();
const workflow = loadWorkflowFixture('sms-send');
const order = { phone: '+91 98123-45678', name: 'Asha', orderId: '1234', eta: '24 Nov' };

function credentials() {
	return { baseUrl: sandbox().url, apiKey: sandbox().apiKey };
}

describe('SMS send through the n8n engine', () => {
	test('sends the form-encoded wire format and outputs the acknowledgement', async () => {
		const { outputs, error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: [{ json: order }],
		});

		expect(error).toBeUndefined();
		const [request] = sandbox().requests();
		expect(sandbox().requests()).toHaveLength(1);
		expect(request.method).toBe('POST');
		expect(request.path).toBe('/v1/sms/send');
		expect(request.headers.authorization).toBe(`Bearer ${sandbox().apiKey}`);
		expect(request.contentType).toBe('application/x-www-form-urlencoded');
		// The fixture's node is at version 1 (Send Once Within 0 unless set): no key unless the user or that option asks for one.
		expect(request.headers['idempotency-key']).toBeUndefined();
		const fields = formFields(request.rawBody);
		expect(fields).toEqual({
			to: '+919812345678',
			entity_id: '1201159876543210123',
			template_id: '1207161111111111111',
			content: expect.any(String),
		});
		expect(JSON.parse(fields.content)).toEqual({
			customer_name: 'Asha',
			order_id: '1234',
			eta: '24 Nov',
		});

		expect(request.response.status).toBe(200);
		expect(outputs.Messaging).toEqual([{ json: request.response.body, pairedItem: { item: 0 } }]);
		expect(outputs.Messaging[0].json).toEqual({
			message_id: expect.stringMatching(/\S/),
			status: 'queued',
			channel: 'sms',
		});
	});

	test('passes the callback URL for this message only', async () => {
		const { outputs } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: [{ json: order }],
			parameters: {
				Messaging: { options: { callbackUrl: 'https://n8n.example.com/webhook/messaging-events' } },
			},
		});

		const fields = formFields(sandbox().requests()[0].rawBody);
		expect(fields.callback_url).toBe('https://n8n.example.com/webhook/messaging-events');
		const message = sandbox()
			.messages()
			.find((record) => record.id === outputs.Messaging[0].json.message_id);
		expect(message?.callbackUrl).toBe('https://n8n.example.com/webhook/messaging-events');
	});

	test('sends a JSON body when asked, with content still JSON-encoded text', async () => {
		const { outputs, error } = await runWorkflow({
			workflow,
			credentials: { ...credentials(), baseUrl: `${sandbox().url}/` },
			items: [{ json: order }],
			parameters: { Messaging: { options: { bodyEncoding: 'json' } } },
		});

		expect(error).toBeUndefined();
		const [request] = sandbox().requests();
		expect(request.path).toBe('/v1/sms/send');
		expect(request.contentType).toBe('application/json');
		const body = JSON.parse(request.rawBody);
		expect(body).toEqual({
			to: '+919812345678',
			entity_id: '1201159876543210123',
			template_id: '1207161111111111111',
			content: '{"customer_name":"Asha","order_id":"1234","eta":"24 Nov"}',
		});
		expect(outputs.Messaging[0].json.status).toBe('queued');
	});

	test('takes every field from expressions, including a JSON variables object and a national number', async () => {
		const { outputs, error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: [
				{
					json: {
						mobile: '098123 45678',
						entity: '1201159876543210123',
						template: '1207162222222222222',
						vars: { otp: 482913 },
					},
				},
			],
			parameters: {
				Messaging: {
					to: '={{ $json.mobile }}',
					entityId: '={{ $json.entity }}',
					templateId: '={{ $json.template }}',
					variablesInputMode: 'json',
					variablesJson: '={{ $json.vars }}',
					options: { defaultCountryCode: '={{ "91" }}' },
				},
			},
		});

		expect(error).toBeUndefined();
		const fields = formFields(sandbox().requests()[0].rawBody);
		expect(fields).toEqual({
			to: '+919812345678',
			entity_id: '1201159876543210123',
			template_id: '1207162222222222222',
			content: '{"otp":482913}',
		});
		expect(outputs.Messaging[0].json.channel).toBe('sms');
	});

	test('a wrong API key fails with a clear message that never contains the key', async () => {
		const wrongKey = 'sk_wrong_9a8b7c6d5e4f';
		const { error, outputs } = await runWorkflow({
			workflow,
			credentials: { ...credentials(), apiKey: wrongKey },
			items: [{ json: order }],
		});

		expect(outputs.Messaging).toBeUndefined();
		expect(error?.message).toMatch(/^The Messaging API rejected the API key \(401\)/);
		expect(error?.description).toContain('Check the API Key');
		expect((error as { httpCode?: string }).httpCode).toBe('401');
		expect(sandbox().requests()[0].headers.authorization).toBe(`Bearer ${wrongKey}`);
		expect(JSON.stringify(error)).not.toContain(wrongKey);
		expect(String(error?.stack)).not.toContain(wrongKey);
		expect(String((error as { cause?: unknown }).cause ?? '')).not.toContain(wrongKey);
	});
});

describe('credential data as n8n stores it', () => {
	test('expressions in the credential are resolved before the Bearer header is built', async () => {
		const { error } = await runWorkflow({
			workflow,
			credentials: {
				baseUrl: `={{ "${sandbox().url}" + "/" }}`,
				apiKey: `={{ "${sandbox().apiKey}" }}`,
			},
			items: [{ json: order }],
		});

		expect(error).toBeUndefined();
		expect(sandbox().requests()[0].headers.authorization).toBe(`Bearer ${sandbox().apiKey}`);
	});

	test('an unknown resource is refused with a clear error and nothing is sent', async () => {
		const { error } = await runWorkflow({
			workflow,
			credentials: credentials(),
			items: [{ json: order }],
			parameters: { Messaging: { resource: 'email' } },
		});

		expect(error?.message).toBe('The resource "email" has no operation "(none)"');
		expect(sandbox().requests()).toHaveLength(0);
	});
});
