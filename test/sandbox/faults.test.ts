import { closedPortUrl, startSandbox, type FaultRule, type Sandbox } from '../../sandbox';
import { encodeFields, errorOf, post, smsFields, whatsappTemplateFields } from './http-client';
import { settle, tracked, useSandboxTime } from './sandbox-time';

const CONNECTION_RESET = {
	message: 'fetch failed',
	cause: expect.objectContaining({ code: 'ECONNRESET' }),
};

async function rawSend(
	sandbox: Sandbox,
	options: { timeoutMs?: number; fields?: Record<string, unknown>; idempotencyKey?: string } = {},
) {
	const { body, contentType } = encodeFields(options.fields ?? smsFields(), 'form');
	const response = await fetch(`${sandbox.url}/v1/sms/send`, {
		method: 'POST',
		headers: {
			Authorization: `Bearer ${sandbox.apiKey}`,
			'Content-Type': contentType,
			...(options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {}),
		},
		body,
		signal: options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined,
	});
	return {
		status: response.status,
		contentType: response.headers.get('content-type'),
		text: await response.text(),
		headers: response.headers,
	};
}

describe('fault injection', () => {
	let sandbox: Sandbox;
	beforeEach(async () => {
		sandbox = await startSandbox({ lifecycle: null });
	});
	afterEach(() => sandbox.close());

	it.each([
		[
			503,
			'json',
			/^application\/json/,
			(text: string) =>
				expect(JSON.parse(text)).toEqual({
					error: { code: 'service_unavailable', message: 'Service Unavailable.' },
				}),
		],
		[500, 'text', /^text\/plain/, (text: string) => expect(text).toBe('500 Internal Server Error')],
		[
			502,
			'html',
			/^text\/html/,
			(text: string) => expect(text).toContain('<h1>502 Bad Gateway</h1>'),
		],
		[500, 'empty', null, (text: string) => expect(text).toBe('')],
		[
			403,
			'json',
			/^application\/json/,
			(text: string) => expect(JSON.parse(text).error.code).toBe('forbidden'),
		],
	] as const)(
		'answers %i with a %s body and accepts nothing',
		async (status, bodyKind, contentType, checkBody) => {
			sandbox.addFault({ match: { times: 1 }, action: { status, bodyKind } });
			const faulty = await rawSend(sandbox);
			expect(faulty.status).toBe(status);
			if (contentType) expect(faulty.contentType).toMatch(contentType);
			else expect(faulty.contentType).toBeNull();
			checkBody(faulty.text);
			expect(sandbox.messages()).toHaveLength(0);
			expect(sandbox.requests()[0].response.status).toBe(status);

			const next = await rawSend(sandbox);
			expect(next.status).toBe(200);
			expect(sandbox.messages()).toHaveLength(1);
		},
	);

	it('passes custom headers and body, e.g. a 429 with Retry-After', async () => {
		sandbox.addFault({
			match: { times: 2 },
			action: {
				status: 429,
				bodyKind: 'json',
				headers: { 'Retry-After': '2' },
				body: '{"error":{"code":"rate_limited","message":"Slow down"}}',
			},
		});
		const replies = [await rawSend(sandbox), await rawSend(sandbox), await rawSend(sandbox)];
		expect(replies.map((reply) => reply.status)).toEqual([429, 429, 200]);
		expect(replies[0].headers.get('retry-after')).toBe('2');
		expect(JSON.parse(replies[0].text).error.message).toBe('Slow down');
		expect(sandbox.messages()).toHaveLength(1);
	});

	it('answers 200 with a body that is not JSON, and says the message was accepted', async () => {
		sandbox.addFault({ match: { times: 1 }, action: { status: 200, bodyKind: 'not-json' } });
		const reply = await rawSend(sandbox);
		expect(reply.status).toBe(200);
		expect(reply.contentType).toBe('application/json');
		expect(() => JSON.parse(reply.text)).toThrow();
		const [message] = sandbox.messages();
		expect(message.acceptedUnderFault).toBe('not-json');
		expect(reply.text).toBe(JSON.stringify(message.acknowledgement).slice(0, reply.text.length));
	});

	it('answers a 2xx acknowledgement without message_id, and says the message was accepted', async () => {
		sandbox.addFault({ match: { times: 1 }, action: { status: 202, bodyKind: 'ack-without-id' } });
		const reply = await rawSend(sandbox);
		expect(reply.status).toBe(202);
		expect(JSON.parse(reply.text)).toEqual({ status: 'queued', channel: 'sms' });
		expect(sandbox.messages()[0].acceptedUnderFault).toBe('ack-without-id');
	});

	it('keeps the real error when a 2xx fault meets a request it refuses', async () => {
		sandbox.addFault({ action: { status: 200, bodyKind: 'ack-without-id' } });
		const reply = await post(sandbox, '/v1/sms/send', smsFields({ to: '12345' }));
		expect(reply.status).toBe(400);
		expect(errorOf(reply).field).toBe('to');
		expect(sandbox.messages()).toHaveLength(0);
	});

	describe('in sandbox time', () => {
		const time = useSandboxTime();

		it('delays the answer past the client timeout while the message is accepted', async () => {
			// The 400 ms of sandbox time never pass: the client's real 100 ms timeout always comes first.
			sandbox.addFault({ match: { times: 1 }, action: { delayMs: 400 } });
			await expect(rawSend(sandbox, { timeoutMs: 100 })).rejects.toThrow(/timeout|aborted/i);
			const [message] = sandbox.messages();
			expect(message.acceptedUnderFault).toBe('delay');
			expect(time().pendingDelays()).toEqual([400]);

			sandbox.addFault({ match: { times: 1 }, action: { delayMs: 150 } });
			const patient = tracked(rawSend(sandbox));
			await time().untilPending(2);
			expect(time().pendingDelays()).toEqual([400, 150]);
			await time().advance(149);
			await settle();
			expect(patient.settled()).toBe(false);
			await time().advance(1);
			expect((await patient.promise).status).toBe(200);
			expect(sandbox.messages()).toHaveLength(2);
		});
	});

	it('resets the connection before reading the body: nothing accepted, the attempt recorded', async () => {
		sandbox.addFault({
			match: { path: '/v1/sms/send', times: 1 },
			action: { reset: 'before-body' },
		});
		await expect(rawSend(sandbox)).rejects.toMatchObject(CONNECTION_RESET);
		expect(sandbox.messages()).toHaveLength(0);
		expect(sandbox.requests()).toEqual([
			expect.objectContaining({
				path: '/v1/sms/send',
				response: expect.objectContaining({ status: 0 }),
			}),
		]);
		expect((await rawSend(sandbox)).status).toBe(200);
	});

	it('resets the connection after accepting the message; an idempotent retry gets the same acknowledgement', async () => {
		sandbox.addFault({ match: { times: 1 }, action: { reset: 'after-body' } });
		await expect(rawSend(sandbox, { idempotencyKey: 'exec-9-item-3' })).rejects.toMatchObject(
			CONNECTION_RESET,
		);
		const [message] = sandbox.messages();
		expect(message.acceptedUnderFault).toBe('reset-after-body');

		const retry = await rawSend(sandbox, { idempotencyKey: 'exec-9-item-3' });
		expect(JSON.parse(retry.text)).toEqual(message.acknowledgement);
		expect(sandbox.messages()).toHaveLength(1);
	});

	it('matches by recipient and by path', async () => {
		sandbox.addFault({ match: { to: '+919812340000' }, action: { status: 500, bodyKind: 'json' } });
		sandbox.addFault({
			match: { path: '/v1/whatsapp/send' },
			action: { status: 502, bodyKind: 'text' },
		});
		expect((await post(sandbox, '/v1/sms/send', smsFields({ to: '+919812340000' }))).status).toBe(
			500,
		);
		expect((await post(sandbox, '/v1/sms/send', smsFields({ to: '+919812340001' }))).status).toBe(
			200,
		);
		expect((await post(sandbox, '/v1/whatsapp/send', whatsappTemplateFields())).status).toBe(502);
		expect(sandbox.faults().map((fault) => fault.remaining)).toEqual([null, null]);

		sandbox.clearFaults();
		expect((await post(sandbox, '/v1/whatsapp/send', whatsappTemplateFields())).status).toBe(200);
		expect(sandbox.faults()).toEqual([]);
	});

	it('counts times down and drops a spent rule', async () => {
		const id = sandbox.addFault({
			match: { times: 2 },
			action: { status: 500, bodyKind: 'empty' },
		});
		expect(id).toMatch(/^fault_/);
		await rawSend(sandbox);
		expect(sandbox.faults()).toEqual([expect.objectContaining({ id, remaining: 1 })]);
		await rawSend(sandbox);
		expect(sandbox.faults()).toEqual([]);
	});

	it.each<[string, unknown]>([
		['no action', {}],
		['two actions', { action: { status: 500, bodyKind: 'json', delayMs: 10 } }],
		['an unknown body kind', { action: { status: 500, bodyKind: 'xml' } }],
		['a status out of range', { action: { status: 99, bodyKind: 'json' } }],
		['an unknown reset', { action: { reset: 'mid-body' } }],
		[
			'a before-body reset matched by recipient',
			{ match: { to: '+919812345678' }, action: { reset: 'before-body' } },
		],
		['times zero', { match: { times: 0 }, action: { delayMs: 10 } }],
		['a relative path', { match: { path: 'v1/sms/send' }, action: { delayMs: 10 } }],
	])('refuses a rule with %s', (_case, rule) => {
		expect(() => sandbox.addFault(rule as FaultRule)).toThrow();
		expect(sandbox.faults()).toEqual([]);
	});
});

describe('fault rules given at start', () => {
	it('apply from the first request', async () => {
		const sandbox = await startSandbox({
			lifecycle: null,
			faults: [
				{ match: { path: '/v1/sms/send', times: 1 }, action: { status: 500, bodyKind: 'text' } },
			],
		});
		try {
			expect((await rawSend(sandbox)).status).toBe(500);
			expect((await rawSend(sandbox)).status).toBe(200);
		} finally {
			await sandbox.close();
		}
	});

	it('are checked like added ones', async () => {
		await expect(
			startSandbox({ faults: [{ action: { reset: 'sideways' } } as unknown as FaultRule] }),
		).rejects.toThrow(/reset/);
	});
});

describe('closedPortUrl', () => {
	it('gives a loopback URL where the connection is refused', async () => {
		const url = await closedPortUrl();
		expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		await expect(fetch(`${url}/v1/sms/send`, { method: 'POST' })).rejects.toMatchObject({
			cause: expect.objectContaining({ code: 'ECONNREFUSED' }),
		});
	});
});
