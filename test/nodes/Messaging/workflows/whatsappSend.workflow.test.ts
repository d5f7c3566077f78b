import { formFields, useSandbox } from '../../../helpers/sandboxForTests';
import { loadWorkflowFixture, runWorkflow } from '../../../helpers/runWorkflow';

const sandbox = useSandbox();
const order = { phone: '+919812345678', name: 'Asha', orderId: '1234', eta: '24 Nov' };
const expectedComponents = {
	header: { '1': 'Order 1234' },
	body: { '1': 'Asha', '2': '24 Nov' },
	buttons: { '1': 'track-1234' },
};

function credentials() {
	return { baseUrl: sandbox().url, apiKey: sandbox().apiKey };
}

describe('WhatsApp send through the n8n engine', () => {
	test('template with component rows sends positional components as JSON-encoded text', async () => {
		const { outputs, error } = await runWorkflow({
			workflow: loadWorkflowFixture('whatsapp-template'),
			credentials: credentials(),
			items: [{ json: order }],
		});

		expect(error).toBeUndefined();
		const [request] = sandbox().requests();
		expect(request.method).toBe('POST');
		expect(request.path).toBe('/v1/whatsapp/send');
		expect(request.headers.authorization).toBe(`Bearer ${sandbox().apiKey}`);
		expect(request.contentType).toBe('application/x-www-form-urlencoded');
		const fields = formFields(request.rawBody);
		expect(Object.keys(fields).sort()).toEqual(['components', 'template_name', 'to', 'type']);
		expect(fields).toMatchObject({
			to: '+919812345678',
			type: 'template',
			template_name: 'order_update',
		});
		expect(JSON.parse(fields.components)).toEqual(expectedComponents);
		expect(outputs.Messaging).toEqual([{ json: request.response.body, pairedItem: { item: 0 } }]);
		expect(outputs.Messaging[0].json).toMatchObject({ status: 'sent', channel: 'whatsapp' });
	});

	test('template with components as a JSON object from an expression, in a JSON body', async () => {
		const { outputs, error } = await runWorkflow({
			workflow: loadWorkflowFixture('whatsapp-template'),
			credentials: credentials(),
			items: [{ json: { ...order, components: expectedComponents } }],
			parameters: {
				Messaging: {
					componentsInputMode: 'json',
					componentsJson: '={{ $json.components }}',
					options: { bodyEncoding: 'json' },
				},
			},
		});

		expect(error).toBeUndefined();
		const [request] = sandbox().requests();
		expect(request.contentType).toBe('application/json');
		const body = JSON.parse(request.rawBody);
		expect(body).toEqual({
			to: '+919812345678',
			type: 'template',
			template_name: 'order_update',
			components: expect.any(String),
		});
		expect(JSON.parse(body.components)).toEqual(expectedComponents);
		expect(outputs.Messaging[0].json.status).toBe('sent');
	});

	test('a template whose components do not match is refused by the provider with its reason', async () => {
		const { error } = await runWorkflow({
			workflow: loadWorkflowFixture('whatsapp-template'),
			credentials: credentials(),
			items: [{ json: order }],
			parameters: { Messaging: { templateName: 'welcome' } },
		});

		expect(error?.message).toMatch(
			/^The Messaging API rejected the message \(422\): components\.header does not match template 'welcome'/,
		);
		expect(error?.description).toContain('the same number of header, body and button values');
	});

	test('session message inside the 24-hour window carries only the text', async () => {
		const { outputs, error } = await runWorkflow({
			workflow: loadWorkflowFixture('whatsapp-session'),
			credentials: credentials(),
			items: [{ json: order }],
		});

		expect(error).toBeUndefined();
		const fields = formFields(sandbox().requests()[0].rawBody);
		expect(fields).toEqual({
			to: '+919812345678',
			type: 'session',
			text: 'Hi Asha, your order 1234 has shipped.',
		});
		expect(outputs.Messaging[0].json).toMatchObject({ status: 'sent', channel: 'whatsapp' });
	});

	test('session message after the window closed fails with what to do instead', async () => {
		const recipient = '+919811112222';
		sandbox().simulateInbound(recipient);
		sandbox().clock.advance(24 * 60 * 60 * 1000 + 60_000);

		const { outputs, error } = await runWorkflow({
			workflow: loadWorkflowFixture('whatsapp-session'),
			credentials: credentials(),
			items: [{ json: { ...order, phone: recipient } }],
			continueOnFail: true,
		});

		expect(error).toBeUndefined();
		expect(sandbox().requests()).toHaveLength(1);
		expect(outputs.Messaging).toEqual([
			{
				json: {
					error: expect.stringMatching(
						/^The Messaging API rejected the message \(422\): No open 24-hour session with \+919811112222/,
					),
					description: expect.stringContaining('send a template message instead'),
					httpCode: '422',
				},
				pairedItem: { item: 0 },
			},
		]);
	});
});
