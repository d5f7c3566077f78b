import type { ICredentialsDecrypted } from 'n8n-workflow';

import { testSigningSecret } from '../../../nodes/MessagingTrigger/credentialTest';

function credential(signingSecret: unknown): ICredentialsDecrypted {
	return {
		id: '1',
		name: 'Signing secret',
		type: 'messagingWebhookApi',
		data: { signingSecret } as never,
	};
}

describe('testSigningSecret', () => {
	it('accepts a pasted secret', async () => {
		expect(await testSigningSecret(credential('whsec_sandbox_8d3b6a0f5e7c'))).toEqual({
			status: 'OK',
			message: expect.any(String),
		});
	});

	it.each([[''], ['   '], [undefined]])('refuses an empty secret %p', async (secret) => {
		expect(await testSigningSecret(credential(secret))).toEqual({
			status: 'Error',
			message: expect.stringContaining('empty'),
		});
	});

	it.each([[' whsec_x'], ['whsec_x\n']])('refuses surrounding whitespace in %p', async (secret) => {
		expect(await testSigningSecret(credential(secret))).toEqual({
			status: 'Error',
			message: expect.stringContaining('whitespace'),
		});
	});
});
