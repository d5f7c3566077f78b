import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions, INode } from 'n8n-workflow';

import { readEndpoint } from '../../../../nodes/Messaging/transport/endpoint';
import { messagingNode } from '../../../helpers/nodeFixtures';

/** n8n's context as far as reading the credential goes: what getCredentials returns for the node. */
function contextWith(credentials: Record<string, unknown>, node: INode = messagingNode()) {
	let reads = 0;
	const context = {
		getNode: () => node,
		getCredentials: async (type: string) => {
			expect(type).toBe('messagingApi');
			reads++;
			return credentials;
		},
	} as unknown as IExecuteFunctions;
	return { context, reads: () => reads };
}

describe('readEndpoint', () => {
	test('reads the credential once and hands it on with the node credential id and name', async () => {
		const credentials = { baseUrl: ' https://api.example.com/ ', apiKey: 'sk_live_1' };
		const node = messagingNode(
			{},
			{ credentials: { messagingApi: { id: '7', name: 'Prod messaging' } } },
		);
		const { context, reads } = contextWith(credentials, node);

		expect(await readEndpoint(context)).toEqual({
			baseUrl: 'https://api.example.com/',
			apiKey: 'sk_live_1',
			credentialOptions: {
				credentialsDecrypted: {
					id: '7',
					name: 'Prod messaging',
					type: 'messagingApi',
					data: credentials,
				},
			},
		});
		expect(reads()).toBe(1);
	});

	test('a node without a stored credential reference still hands the credential on, with empty id and name', async () => {
		const credentials = { baseUrl: 'http://127.0.0.1:4010', apiKey: 'sk_test_1' };
		const endpoint = await readEndpoint(contextWith(credentials).context);
		expect(endpoint.credentialOptions).toEqual({
			credentialsDecrypted: { id: '', name: '', type: 'messagingApi', data: credentials },
		});
	});

	test.each([
		[''],
		['   '],
		['api.example.com'],
		['ftp://api.example.com'],
		['https:///v1'],
		[undefined],
	])('Base URL %p is refused with the fix', async (baseUrl) => {
		const error = await readEndpoint(contextWith({ baseUrl, apiKey: 'k' }).context).catch(
			(thrown: unknown) => thrown,
		);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as NodeOperationError).message).toBe(
			'The Messaging API credential has no valid Base URL',
		);
		expect((error as NodeOperationError).description).toBe(
			'Open the credential and set Base URL to the API root, e.g. https://api.example.com.',
		);
	});
});
