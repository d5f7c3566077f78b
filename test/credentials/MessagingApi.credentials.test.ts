import { MessagingApi } from '../../credentials/MessagingApi.credentials';

describe('Messaging API credential', () => {
	const credential = new MessagingApi();

	test('adds the key as a Bearer header, keeping the request and its other headers', async () => {
		const request = {
			url: 'https://api.example.com/v1/sms/send',
			method: 'POST' as const,
			headers: { accept: 'application/json' },
			body: { to: '+919812345678' },
		};
		const authenticated = await credential.authenticate({ apiKey: 'sk_1', baseUrl: 'x' }, request);
		expect(authenticated).toEqual({
			...request,
			headers: { accept: 'application/json', Authorization: 'Bearer sk_1' },
		});
		expect(request.headers).toEqual({ accept: 'application/json' });
	});

	test('asks for the key as a password and the Base URL as the API root', () => {
		expect(credential.name).toBe('messagingApi');
		const [apiKey, baseUrl] = credential.properties;
		expect(apiKey).toMatchObject({
			name: 'apiKey',
			typeOptions: { password: true },
			required: true,
		});
		expect(baseUrl).toMatchObject({ name: 'baseUrl', required: true });
		expect(baseUrl.placeholder).toMatch(/^e\.g\. https:\/\//);
	});
});
