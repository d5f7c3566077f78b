import {
	classifyFacts,
	thrownFailureFacts,
	readProviderMessage,
} from '../../../../../nodes/Messaging/transport/failures/facts';

describe('readProviderMessage', () => {
	test.each([
		[
			'{error:{message}} with a field',
			{ error: { code: 'template_mismatch', message: 'Variables do not match', field: 'content' } },
			{ message: 'Variables do not match', field: 'content', code: 'template_mismatch' },
		],
		['{message}', { message: 'Invalid number' }, { message: 'Invalid number' }],
		['{error:"…"}', { error: 'invalid_token' }, { message: 'invalid_token' }],
		[
			'{errors:[…]} of objects and strings',
			{ errors: [{ message: 'to is required' }, 'type is required'] },
			{ message: 'to is required; type is required' },
		],
		['JSON text', '{"error":{"message":"Rate limited"}}', { message: 'Rate limited' }],
		['plain text, trimmed', '  Service Unavailable \n', { message: 'Service Unavailable' }],
		[
			'HTML page, tags and scripts stripped',
			'<html><head><style>p{}</style></head><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>',
			{ message: '502 Bad Gateway nginx' },
		],
		['a Buffer', Buffer.from('{"message":"from a buffer"}'), { message: 'from a buffer' }],
		['unknown object shape', { detail: 'x' }, { message: '{"detail":"x"}' }],
		['empty text', '   ', {}],
		['nothing', undefined, {}],
	])('%s', (_case, body, expected) => {
		expect(readProviderMessage(body)).toEqual(expected);
	});

	test('long bodies are clipped', () => {
		const message = readProviderMessage('x'.repeat(2000)).message!;
		expect(message).toHaveLength(501);
		expect(message.endsWith('…')).toBe(true);
	});
});

describe('thrownFailureFacts', () => {
	test('finds the Node.js error code along the cause chain and notices timeouts', () => {
		const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
			code: 'ECONNREFUSED',
		});
		expect(thrownFailureFacts(new Error('wrapper', { cause: refused }))).toEqual({
			networkCode: 'ECONNREFUSED',
			timedOut: false,
		});
		const timeout = Object.assign(new Error('timeout of 1000ms exceeded'), {
			code: 'ECONNABORTED',
		});
		expect(thrownFailureFacts(timeout)).toEqual({ networkCode: 'ECONNABORTED', timedOut: true });
		const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
		expect(thrownFailureFacts(reset)).toEqual({ networkCode: 'ECONNRESET', timedOut: false });
	});

	test('an error with neither a status nor a system error code is no network failure: only its message is kept', () => {
		const thrown = new Error('Credentials could not be decrypted for key sk_live_1');
		expect(thrownFailureFacts(thrown, 'sk_live_1')).toEqual({
			unexpectedError: 'Credentials could not be decrypted for key ***',
		});
		expect(classifyFacts(thrownFailureFacts(thrown))).toEqual({ kind: 'final' });
	});

	test('an HTTP answer thrown as an error keeps only its status, Retry-After and provider message', () => {
		const thrown = Object.assign(new Error('Request failed with status code 429'), {
			config: { headers: { Authorization: 'Bearer sk_secret' } },
			response: {
				status: 429,
				headers: { 'retry-after': '4' },
				data: { error: { message: 'Slow down' } },
			},
		});
		const facts = thrownFailureFacts(new Error('wrapper', { cause: thrown }));
		expect(facts).toEqual({
			status: 429,
			retryAfter: '4',
			providerMessage: 'Slow down',
			providerField: undefined,
		});
		expect(JSON.stringify(facts)).not.toContain('sk_secret');
	});
});
