import { createManualClock, startSandbox, type Sandbox } from '../../sandbox';
import {
	errorOf,
	OPEN_SESSION_NUMBER,
	post,
	whatsappTemplateFields,
	type Encoding,
} from './http-client';

const HOUR_MS = 60 * 60 * 1000;

describe('POST /v1/whatsapp/send', () => {
	let sandbox: Sandbox;

	beforeAll(async () => {
		sandbox = await startSandbox({
			lifecycle: null,
			clock: createManualClock(Date.UTC(2026, 10, 22, 9)),
		});
	});
	afterAll(() => sandbox.close());

	it.each<Encoding>(['form', 'json'])(
		'accepts a template message (%s) and acknowledges it as sent',
		async (encoding) => {
			const reply = await post(sandbox, '/v1/whatsapp/send', whatsappTemplateFields(), {
				encoding,
			});
			expect(reply.status).toBe(200);
			expect(reply.body).toEqual({
				message_id: expect.stringMatching(/^msg_[0-9A-Z]{26}$/),
				status: 'sent',
				channel: 'whatsapp',
			});
			const message = sandbox
				.messages()
				.find((record) => record.id === (reply.body as { message_id: string }).message_id);
			expect(message).toMatchObject({ channel: 'whatsapp', status: 'sent', callbackUrl: null });
		},
	);

	it('accepts a template without variables when it declares none, and omitted empty sections', async () => {
		const reply = await post(sandbox, '/v1/whatsapp/send', {
			to: '+919812345678',
			type: 'template',
			template_name: 'welcome',
			components: { body: { '1': 'Asha' } },
		});
		expect(reply.status).toBe(200);
	});

	const components = {
		header: { '1': 'Order 1234' },
		body: { '1': 'Asha', '2': '24 Nov' },
		buttons: { '1': 'track-1234' },
	};
	it.each([
		['type missing', { type: undefined }, 400, 'missing_field', 'type'],
		['an unknown type', { type: 'broadcast' }, 400, 'invalid_field', 'type'],
		['to national', { to: '09812345678' }, 400, 'invalid_field', 'to'],
		['template_name missing', { template_name: undefined }, 400, 'missing_field', 'template_name'],
		[
			'an unknown template',
			{ template_name: 'spring_sale' },
			404,
			'template_not_found',
			'template_name',
		],
		['components not JSON', { components: '{header:1}' }, 400, 'invalid_body', 'components'],
		[
			'components missing for a template with variables',
			{ components: undefined },
			422,
			'template_mismatch',
			'components',
		],
		[
			'an unknown section',
			{ components: { ...components, footer: { '1': 'x' } } },
			400,
			'invalid_field',
			'components',
		],
		[
			'a section that is not an object',
			{ components: { ...components, body: ['Asha', '24 Nov'] } },
			400,
			'invalid_field',
			'components',
		],
		[
			'a missing body variable',
			{ components: { ...components, body: { '1': 'Asha' } } },
			422,
			'template_mismatch',
			'components',
		],
		[
			'a non-numeric key',
			{ components: { ...components, body: { '1': 'Asha', name: 'x' } } },
			422,
			'template_mismatch',
			'components',
		],
		[
			'a zero-based key',
			{ components: { ...components, header: { '0': 'x' } } },
			422,
			'template_mismatch',
			'components',
		],
		[
			'a button the template lacks',
			{ template_name: 'welcome', components: { body: { '1': 'A' }, buttons: { '1': 'x' } } },
			422,
			'template_mismatch',
			'components',
		],
		[
			'a boolean value',
			{ components: { ...components, header: { '1': true } } },
			400,
			'invalid_field',
			'components',
		],
		['text on a template message', { text: 'hello' }, 400, 'invalid_field', 'text'],
		[
			'callback_url on WhatsApp',
			{ callback_url: 'https://hooks.example.com' },
			400,
			'invalid_field',
			'callback_url',
		],
	])('rejects %s', async (_case, overrides, status, code, field) => {
		const fields = Object.fromEntries(
			Object.entries(whatsappTemplateFields(overrides)).filter(([, value]) => value !== undefined),
		);
		const before = sandbox.messages().length;
		const reply = await post(sandbox, '/v1/whatsapp/send', fields);
		expect(reply.status).toBe(status);
		expect(errorOf(reply)).toMatchObject({ code, field });
		expect(sandbox.messages()).toHaveLength(before);
	});

	describe('session messages', () => {
		const session = (to: string, extra: Record<string, unknown> = {}) =>
			post(sandbox, '/v1/whatsapp/send', {
				to,
				type: 'session',
				text: 'Your order is on its way',
				...extra,
			});

		it('are accepted for a number seeded with an open window', async () => {
			const reply = await session(OPEN_SESSION_NUMBER);
			expect(reply.status).toBe(200);
			expect(reply.body).toMatchObject({ status: 'sent', channel: 'whatsapp' });
		});

		it('are refused when the recipient never wrote', async () => {
			const reply = await session('+919811111111');
			expect(reply.status).toBe(422);
			expect(errorOf(reply)).toMatchObject({ code: 'session_window_closed', field: 'to' });
		});

		it('open with an inbound message and close 24 hours after it', async () => {
			const number = '+919822222222';
			sandbox.simulateInbound(number);
			sandbox.clock.advance(23 * HOUR_MS);
			expect((await session(number)).status).toBe(200);

			sandbox.clock.advance(HOUR_MS);
			const reply = await session(number);
			expect(reply.status).toBe(422);
			expect(errorOf(reply).code).toBe('session_window_closed');

			sandbox.simulateInbound(number);
			expect((await session(number)).status).toBe(200);
		});

		it.each([
			['text missing', { text: undefined }, 'missing_field', 'text'],
			['text blank', { text: '  ' }, 'missing_field', 'text'],
			['text too long', { text: 'x'.repeat(4097) }, 'invalid_field', 'text'],
			[
				'template_name on a session',
				{ template_name: 'welcome' },
				'invalid_field',
				'template_name',
			],
			['components on a session', { components: '{}' }, 'invalid_field', 'components'],
		])('reject %s', async (_case, extra, code, field) => {
			const fields = Object.fromEntries(
				Object.entries({ to: OPEN_SESSION_NUMBER, type: 'session', text: 'hi', ...extra }).filter(
					([, v]) => v !== undefined,
				),
			);
			const reply = await post(sandbox, '/v1/whatsapp/send', fields);
			expect(reply.status).toBe(400);
			expect(errorOf(reply)).toMatchObject({ code, field });
		});
	});
});
