import { startSandbox, type Sandbox } from '../../sandbox';
import {
	ENTITY_ID,
	errorOf,
	OTP_TEMPLATE_ID,
	post,
	postRaw,
	smsFields,
	type Encoding,
} from './http-client';

describe('POST /v1/sms/send', () => {
	let sandbox: Sandbox;

	beforeAll(async () => {
		sandbox = await startSandbox({ lifecycle: null });
	});
	afterAll(() => sandbox.close());
	beforeEach(() => sandbox.clearRequests());

	it.each<Encoding>(['form', 'json'])(
		'accepts a valid %s send and acknowledges it as queued',
		async (encoding) => {
			const before = sandbox.messages().length;
			const reply = await post(
				sandbox,
				'/v1/sms/send',
				smsFields({ callback_url: 'https://hooks.example.com/sms' }),
				{
					encoding,
				},
			);

			expect(reply.status).toBe(200);
			expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
			const ack = reply.body as { message_id: string; status: string; channel: string };
			expect(Object.keys(ack).sort()).toEqual(['channel', 'message_id', 'status']);
			expect(ack).toMatchObject({ status: 'queued', channel: 'sms' });
			expect(ack.message_id).toMatch(/^msg_[0-9A-Z]{26}$/);

			const messages = sandbox.messages();
			expect(messages).toHaveLength(before + 1);
			const message = messages[messages.length - 1];
			expect(message).toMatchObject({
				id: ack.message_id,
				channel: 'sms',
				to: '+919812345678',
				status: 'queued',
				callbackUrl: 'https://hooks.example.com/sms',
				acceptedUnderFault: null,
			});
			expect(message.history.map((change) => change.status)).toEqual(['queued']);
		},
	);

	it('accepts nested objects in a JSON body as well as JSON-encoded text', async () => {
		const fields = smsFields();
		const reply = await postJsonObject(sandbox, fields);
		expect(reply.status).toBe(200);
		expect(sandbox.requests()[0].fields.content).toEqual(fields.content);
	});

	it('accepts numbers as variable values', async () => {
		const reply = await post(sandbox, '/v1/sms/send', {
			to: '+919812345678',
			entity_id: ENTITY_ID,
			template_id: OTP_TEMPLATE_ID,
			content: { otp: 482913 },
		});
		expect(reply.status).toBe(200);
	});

	it('records what it received: method, path, headers, content type, raw body and fields', async () => {
		await post(sandbox, '/v1/sms/send', smsFields());
		const [request] = sandbox.requests();
		expect(request).toMatchObject({
			method: 'POST',
			path: '/v1/sms/send',
			contentType: 'application/x-www-form-urlencoded',
			response: { status: 200 },
		});
		expect(request.headers.authorization).toBe(`Bearer ${sandbox.apiKey}`);
		expect(request.fields).toEqual({
			to: '+919812345678',
			entity_id: ENTITY_ID,
			template_id: '1207161111111111111',
			content: JSON.stringify({ customer_name: 'Asha', order_id: '1234', eta: '24 Nov' }),
		});
		expect(new URLSearchParams(request.rawBody).get('content')).toBe(request.fields.content);
		expect(typeof request.receivedAt).toBe('number');
	});

	it('gives every message its own id', async () => {
		const replies = await Promise.all(
			Array.from({ length: 50 }, () => post(sandbox, '/v1/sms/send', smsFields())),
		);
		const ids = replies.map((reply) => (reply.body as { message_id: string }).message_id);
		expect(replies.every((reply) => reply.status === 200)).toBe(true);
		expect(new Set(ids).size).toBe(50);
	});

	const content = { customer_name: 'Asha', order_id: '1234', eta: '24 Nov' };
	it.each([
		['to missing', { to: undefined }, 400, 'missing_field', 'to'],
		['to blank', { to: '   ' }, 400, 'missing_field', 'to'],
		['to national', { to: '9812345678' }, 400, 'invalid_field', 'to'],
		['to with spaces', { to: '+91 98123 45678' }, 400, 'invalid_field', 'to'],
		['to too long', { to: '+9198123456789012' }, 400, 'invalid_field', 'to'],
		['entity_id missing', { entity_id: undefined }, 400, 'missing_field', 'entity_id'],
		['template_id missing', { template_id: undefined }, 400, 'missing_field', 'template_id'],
		['content missing', { content: undefined }, 400, 'missing_field', 'content'],
		['content not JSON', { content: 'customer_name=Asha' }, 400, 'invalid_body', 'content'],
		['content an array', { content: '["Asha"]' }, 400, 'invalid_field', 'content'],
		[
			'unknown entity',
			{ entity_id: '1201150000000000000' },
			404,
			'template_not_found',
			'entity_id',
		],
		[
			'unknown template',
			{ template_id: '1207169999999999999' },
			404,
			'template_not_found',
			'template_id',
		],
		[
			'content missing a variable',
			{ content: { customer_name: 'Asha', order_id: '1' } },
			422,
			'template_mismatch',
			'content',
		],
		[
			'content with an unknown variable',
			{ content: { ...content, coupon: 'X' } },
			422,
			'template_mismatch',
			'content',
		],
		[
			'a nested variable value',
			{ content: { ...content, eta: { day: 24 } } },
			400,
			'invalid_field',
			'content',
		],
		[
			'an empty variable value',
			{ content: { ...content, eta: ' ' } },
			400,
			'invalid_field',
			'content',
		],
		['callback_url relative', { callback_url: '/hooks/sms' }, 400, 'invalid_field', 'callback_url'],
		[
			'callback_url not http',
			{ callback_url: 'ftp://example.com/x' },
			400,
			'invalid_field',
			'callback_url',
		],
		['an unknown field', { priority: 'high' }, 400, 'invalid_field', 'priority'],
	])('rejects %s', async (_case, overrides, status, code, field) => {
		const fields = Object.fromEntries(
			Object.entries(smsFields(overrides)).filter(([, value]) => value !== undefined),
		);
		const before = sandbox.messages().length;
		const reply = await post(sandbox, '/v1/sms/send', fields);
		expect(reply.status).toBe(status);
		expect(errorOf(reply)).toMatchObject({ code, field });
		expect(errorOf(reply).message.length).toBeGreaterThan(10);
		expect(sandbox.messages()).toHaveLength(before);
		expect(sandbox.requests()[0].response.status).toBe(status);
	});

	it('names the missing and unknown variables of a template mismatch', async () => {
		const reply = await post(
			sandbox,
			'/v1/sms/send',
			smsFields({ content: { customer_name: 'Asha', order: '1', eta: 'x' } }),
		);
		expect(errorOf(reply).message).toContain('missing order_id');
		expect(errorOf(reply).message).toContain('unknown order');
	});

	it('rejects a repeated form field', async () => {
		const reply = await postRaw(sandbox, '/v1/sms/send', 'to=%2B919812345678&to=%2B919812345679', {
			Authorization: `Bearer ${sandbox.apiKey}`,
			'Content-Type': 'application/x-www-form-urlencoded',
		});
		expect(reply.status).toBe(400);
		expect(errorOf(reply)).toMatchObject({ code: 'invalid_field', field: 'to' });
	});
});

function postJsonObject(sandbox: Sandbox, fields: Record<string, unknown>) {
	return postRaw(sandbox, '/v1/sms/send', JSON.stringify(fields), {
		Authorization: `Bearer ${sandbox.apiKey}`,
		'Content-Type': 'application/json; charset=utf-8',
	});
}
