import { CredentialTestContext } from 'n8n-core';
import type { ICredentialsDecrypted } from 'n8n-workflow';

import { testMessagingApiCredential } from '../../../../nodes/Messaging/methods/testMessagingApiCredential';
import { closedPortUrl } from '../../../../sandbox';
import { useSandbox } from '../../../helpers/sandboxForTests';

const sandbox = useSandbox();

/** The same context n8n's CredentialsTester builds for a `testedBy` function. */
async function runCredentialTest(data: { baseUrl: string; apiKey: string }) {
	const credential: ICredentialsDecrypted = {
		id: '1',
		name: 'Messaging API',
		type: 'messagingApi',
		data,
	};
	return await testMessagingApiCredential.call(new CredentialTestContext(), credential);
}

describe('Messaging API credential test', () => {
	test('a good key passes: the empty send is refused for its body, and nothing is sent', async () => {
		const messagesBefore = sandbox().messages().length;
		const result = await runCredentialTest({
			baseUrl: `${sandbox().url}/`,
			apiKey: sandbox().apiKey,
		});

		expect(result).toEqual({ status: 'OK', message: 'API key accepted' });
		const [request] = sandbox().requests();
		expect(request.method).toBe('POST');
		expect(request.path).toBe('/v1/sms/send');
		expect(request.headers.authorization).toBe(`Bearer ${sandbox().apiKey}`);
		expect([400, 422]).toContain(request.response.status);
		expect(sandbox().messages()).toHaveLength(messagesBefore);
	});

	test('a wrong key is reported as rejected, without echoing the key', async () => {
		const result = await runCredentialTest({
			baseUrl: sandbox().url,
			apiKey: 'sk_not_the_key_123456',
		});

		expect(result.status).toBe('Error');
		expect(result.message).toBe(
			'The Messaging API rejected the API key (401): The API key is not valid. Check the key in your credential. Check the API Key in the Messaging API credential, and that the key may send on this channel.',
		);
		expect(result.message).not.toContain('sk_not_the_key_123456');
	});

	test('a base URL that does not lead to the API says so', async () => {
		const result = await runCredentialTest({
			baseUrl: `${sandbox().url}/v1`,
			apiKey: sandbox().apiKey,
		});

		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^The Messaging API did not find what was asked for \(404\): No endpoint at \/v1\/v1\/sms\/send\..* Check the credential's Base URL \(the API root, e\.g\. https:\/\/api\.example\.com, without \/v1\)\.$/,
		);
	});

	test('an unreachable base URL and missing fields fail before or without a request', async () => {
		const unreachable = await runCredentialTest({
			baseUrl: await closedPortUrl(),
			apiKey: sandbox().apiKey,
		});
		expect(unreachable.status).toBe('Error');
		expect(unreachable.message).toBe(
			"Could not connect to the Messaging API. Check the credential's Base URL and that the service is reachable from n8n. Nothing was sent.",
		);

		expect(await runCredentialTest({ baseUrl: 'api.example.com', apiKey: 'x' })).toEqual({
			status: 'Error',
			message:
				'Base URL is not valid. Open the credential and set Base URL to the API root, e.g. https://api.example.com.',
		});
		expect(await runCredentialTest({ baseUrl: sandbox().url, apiKey: ' ' })).toEqual({
			status: 'Error',
			message: 'Enter the API Key',
		});
		expect(sandbox().requests()).toHaveLength(0);
	});
});
