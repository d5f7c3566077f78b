import { startSandbox, type Sandbox } from '../../sandbox';
import { connect } from 'node:net';
import { errorOf, post, postRaw, smsFields } from './http-client';
import { pause, waitUntil } from './webhook-receiver';

describe('sandbox HTTP surface: auth, bodies, routes', () => {
	let sandbox: Sandbox;

	beforeAll(async () => {
		sandbox = await startSandbox({ lifecycle: null });
	});
	afterAll(() => sandbox.close());
	beforeEach(() => sandbox.clearRequests());

	it('answers 401 missing_api_key without an Authorization header, and records the attempt', async () => {
		const reply = await post(sandbox, '/v1/sms/send', smsFields(), { apiKey: null });
		expect(reply.status).toBe(401);
		expect(errorOf(reply).code).toBe('missing_api_key');
		expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
		expect(sandbox.requests()).toHaveLength(1);
		expect(sandbox.requests()[0].response.status).toBe(401);
	});

	it('answers 401 missing_api_key for a scheme other than Bearer', async () => {
		const reply = await post(sandbox, '/v1/sms/send', smsFields(), {
			apiKey: null,
			headers: { Authorization: `Basic ${Buffer.from(`x:${sandbox.apiKey}`).toString('base64')}` },
		});
		expect(errorOf(reply).code).toBe('missing_api_key');
	});

	it('answers 401 invalid_api_key for an unknown key, even for a valid message', async () => {
		const reply = await post(
			sandbox,
			'/v1/whatsapp/send',
			{ to: '+919812345678' },
			{ apiKey: 'sk_live_wrong' },
		);
		expect(reply.status).toBe(401);
		expect(errorOf(reply).code).toBe('invalid_api_key');
		expect(JSON.stringify(reply.body)).not.toContain('sk_live_wrong');
	});

	it.each([
		['no content type', {}],
		['form', { 'Content-Type': 'application/x-www-form-urlencoded' }],
		['json', { 'Content-Type': 'application/json' }],
	])(
		'checks auth before validation on an empty send (%s): 400 with a good key, 401 with a bad one',
		async (_case, headers) => {
			const good = await postRaw(sandbox, '/v1/sms/send', '', {
				...headers,
				Authorization: `Bearer ${sandbox.apiKey}`,
			});
			const bad = await postRaw(sandbox, '/v1/sms/send', '', {
				...headers,
				Authorization: 'Bearer nope',
			});
			expect(good.status).toBe(400);
			expect(errorOf(good)).toMatchObject({ code: 'missing_field', field: 'to' });
			expect(bad.status).toBe(401);
		},
	);

	it('answers 415 for an unsupported content type', async () => {
		const reply = await postRaw(sandbox, '/v1/sms/send', '<to>+919812345678</to>', {
			Authorization: `Bearer ${sandbox.apiKey}`,
			'Content-Type': 'application/xml',
		});
		expect(reply.status).toBe(415);
		expect(errorOf(reply).code).toBe('unsupported_media_type');
	});

	it.each([
		['not JSON', '{"to": '],
		['a JSON array', '["+919812345678"]'],
	])('answers 400 invalid_body for a JSON body that is %s', async (_case, body) => {
		const reply = await postRaw(sandbox, '/v1/sms/send', body, {
			Authorization: `Bearer ${sandbox.apiKey}`,
			'Content-Type': 'application/json',
		});
		expect(reply.status).toBe(400);
		expect(errorOf(reply).code).toBe('invalid_body');
	});

	it('answers 413 for a body over 64 KiB and accepts nothing', async () => {
		const before = sandbox.messages().length;
		const reply = await post(
			sandbox,
			'/v1/sms/send',
			smsFields({ content: { customer_name: 'x'.repeat(70_000), order_id: '1', eta: '2' } }),
		);
		expect(reply.status).toBe(413);
		expect(errorOf(reply).code).toBe('body_too_large');
		expect(sandbox.messages()).toHaveLength(before);
	});

	it('answers 404 not_found for an unknown path and 405 for a wrong method', async () => {
		const notFound = await post(sandbox, '/v1/email/send', {});
		expect(notFound.status).toBe(404);
		expect(errorOf(notFound).code).toBe('not_found');

		const wrongMethod = await fetch(`${sandbox.url}/v1/sms/send`, {
			headers: { Authorization: `Bearer ${sandbox.apiKey}` },
		});
		expect(wrongMethod.status).toBe(405);
		expect(wrongMethod.headers.get('allow')).toBe('POST');
		expect(((await wrongMethod.json()) as { error: { code: string } }).error.code).toBe(
			'method_not_allowed',
		);
	});

	it('survives a client that hangs up halfway through the body, recording the attempt unanswered', async () => {
		const socket = connect(sandbox.port, '127.0.0.1');
		await new Promise((resolve) => socket.once('connect', resolve));
		socket.write(
			`POST /v1/sms/send HTTP/1.1\r\nHost: sandbox\r\nAuthorization: Bearer ${sandbox.apiKey}\r\n` +
				'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nto=%2B91',
		);
		await waitUntil(() => sandbox.requests().length === 1, 'the request is recorded');
		socket.destroy();
		await pause(30);

		expect(sandbox.requests()[0].response.status).toBe(0);
		expect(sandbox.messages()).toHaveLength(0);
		expect((await post(sandbox, '/v1/sms/send', smsFields())).status).toBe(200);
	});

	it('keeps requests in arrival order and clears them', async () => {
		await post(sandbox, '/v1/sms/send', smsFields({ to: '+919800000101' }));
		await post(sandbox, '/v1/sms/send', smsFields({ to: '+919800000102' }));
		expect(sandbox.requests().map((request) => request.fields.to)).toEqual([
			'+919800000101',
			'+919800000102',
		]);
		sandbox.clearRequests();
		expect(sandbox.requests()).toEqual([]);
	});

	it('hands out copies, so a test cannot change the sandbox by accident', async () => {
		await post(sandbox, '/v1/sms/send', smsFields());
		sandbox.requests()[0].fields.to = 'changed';
		sandbox.messages()[0].status = 'read';
		expect(sandbox.requests()[0].fields.to).toBe('+919812345678');
		expect(sandbox.messages()[0].status).toBe('queued');
	});
});
