import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { NodeHelpers } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	IHttpRequestOptions,
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
} from 'n8n-workflow';

import { MessagingApi } from '../../../credentials/MessagingApi.credentials';
import { Messaging } from '../../../nodes/Messaging/Messaging.node';
import { messagingNode } from '../../helpers/nodeFixtures';

const node = new Messaging();
const { description } = node;
const properties = description.properties;
const selectors = new Set(['resource', 'operation']);

function visibleNames(values: Record<string, unknown>): string[] {
	const shown = NodeHelpers.getNodeParameters(
		properties,
		values as never,
		true,
		false,
		messagingNode(),
		description,
	);
	return Object.keys(shown ?? {}).sort();
}

function byDisplayName(a: string, b: string): number {
	return a.localeCompare(b);
}

describe('Messaging node description', () => {
	test('every property except the resource selector is scoped to one resource, and fields also to one operation', () => {
		const scoped = properties.filter((candidate) => candidate.name !== 'resource');
		expect(scoped.length).toBeGreaterThan(0);
		for (const property of scoped) {
			const show = property.displayOptions?.show ?? {};
			expect({
				name: property.name,
				resources: (show.resource as string[] | undefined)?.length,
			}).toEqual({
				name: property.name,
				resources: 1,
			});
			if (!selectors.has(property.name))
				expect({ name: property.name, operation: show.operation }).toEqual({
					name: property.name,
					operation: expect.arrayContaining([expect.stringMatching(/^(send|sendAndWait)$/)]),
				});
			if (!selectors.has(property.name)) expect(show.operation).toHaveLength(1);
		}
	});

	test.each([
		[
			{ resource: 'sms', operation: 'send' },
			[
				'entityId',
				'operation',
				'options',
				'resource',
				'templateId',
				'to',
				'variables',
				'variablesInputMode',
			],
		],
		[
			{ resource: 'sms', operation: 'send', variablesInputMode: 'json' },
			[
				'entityId',
				'operation',
				'options',
				'resource',
				'templateId',
				'to',
				'variablesInputMode',
				'variablesJson',
			],
		],
		[
			{ resource: 'whatsapp', operation: 'send' },
			[
				'components',
				'componentsInputMode',
				'messageType',
				'operation',
				'options',
				'resource',
				'templateName',
				'to',
			],
		],
		[
			{
				resource: 'whatsapp',
				operation: 'send',
				messageType: 'template',
				componentsInputMode: 'json',
			},
			[
				'componentsInputMode',
				'componentsJson',
				'messageType',
				'operation',
				'options',
				'resource',
				'templateName',
				'to',
			],
		],
		[
			{ resource: 'whatsapp', operation: 'send', messageType: 'session' },
			['messageType', 'operation', 'options', 'resource', 'text', 'to'],
		],
		[
			{
				resource: 'whatsapp',
				operation: 'send',
				messageType: 'session',
				componentsInputMode: 'json',
			},
			['messageType', 'operation', 'options', 'resource', 'text', 'to'],
		],
		[
			{ resource: 'whatsapp', operation: 'sendAndWait' },
			[
				'approvalOptions',
				'components',
				'componentsInputMode',
				'declineLinkButton',
				'linkButton',
				'messageType',
				'operation',
				'options',
				'resource',
				'responseType',
				'templateName',
				'to',
			],
		],
		[
			{ resource: 'whatsapp', operation: 'sendAndWait', messageType: 'session' },
			[
				'approvalOptions',
				'message',
				'messageType',
				'operation',
				'options',
				'resource',
				'responseType',
				'to',
			],
		],
		[
			{
				resource: 'whatsapp',
				operation: 'sendAndWait',
				messageType: 'template',
				responseType: 'freeText',
			},
			[
				'components',
				'componentsInputMode',
				'linkButton',
				'messageType',
				'operation',
				'options',
				'resource',
				'responseType',
				'templateName',
				'to',
			],
		],
	])('with %j exactly these fields show', (values, expected) => {
		expect(visibleNames(values)).toEqual(expected);
	});

	test('template fields never show for a session message and text never for a template', () => {
		const templateOnly = ['templateName', 'componentsInputMode', 'components', 'componentsJson'];
		for (const name of templateOnly) {
			const property = properties.find((candidate) => candidate.name === name)!;
			expect({ name, messageType: property.displayOptions?.show?.messageType }).toEqual({
				name,
				messageType: ['template'],
			});
		}
		const text = properties.find((candidate) => candidate.name === 'text')!;
		expect(text.displayOptions?.show?.messageType).toEqual(['session']);
	});

	test('every operation has an action and a description; selector options are alphabetical', () => {
		const selectorProperties = properties.filter(
			(candidate) => candidate.type === 'options' && selectors.has(candidate.name),
		);
		// The resource selector and one operation selector per resource.
		expect(selectorProperties.map((selector) => selector.name).sort()).toEqual([
			'operation',
			'operation',
			'resource',
		]);
		for (const selector of selectorProperties) {
			const options = selector.options as INodePropertyOptions[];
			expect(options.map((option) => option.name)).toEqual(
				options.map((option) => option.name).sort(byDisplayName),
			);
			if (selector.name === 'operation') {
				expect(options.length).toBeGreaterThan(0);
				for (const option of options) {
					expect(option.action).toMatch(/^Send /);
					expect(option.description).toBeTruthy();
				}
			}
		}
	});

	test('options collections are alphabetical, carry the contract names, and the callback URL is SMS only', () => {
		const collections = properties.filter(
			(candidate) =>
				candidate.name === 'options' && candidate.displayOptions?.show?.operation?.[0] === 'send',
		);
		expect(collections).toHaveLength(2);
		for (const collection of collections) {
			const options = collection.options as INodeProperties[];
			const names = options.map((option) => option.displayName);
			expect(names).toEqual([...names].sort(byDisplayName));
			const resource = (collection.displayOptions?.show?.resource as string[])[0];
			const expected = [
				'bodyEncoding',
				'defaultCountryCode',
				'idempotencyKey',
				'maxConcurrency',
				'maxPerSecond',
				'maxTries429',
				'sendOnceHours',
				'timeout',
			];
			if (resource === 'sms') expected.push('callbackUrl');
			expect(options.map((option) => option.name).sort()).toEqual(expected.sort());
		}
		const defaults = Object.fromEntries(
			(collections[0].options as INodeProperties[]).map((option) => [option.name, option.default]),
		);
		expect(defaults).toMatchObject({
			bodyEncoding: 'form',
			timeout: 30000,
			maxConcurrency: 0,
			maxPerSecond: 0,
			maxTries429: 3,
			idempotencyKey: '',
			sendOnceHours: 24,
		});
	});

	test('Send and Wait has one options collection per response type, with the wait limit and no batch knobs', () => {
		const collections = properties.filter(
			(candidate) =>
				candidate.name === 'options' &&
				candidate.displayOptions?.show?.operation?.[0] === 'sendAndWait',
		);
		const names = (responseType: string) => {
			const collection = collections.find((candidate) =>
				(candidate.displayOptions?.show?.responseType as string[]).includes(responseType),
			)!;
			const options = collection.options as INodeProperties[];
			expect(options.map((option) => option.displayName)).toEqual(
				options.map((option) => option.displayName).sort(byDisplayName),
			);
			return options.map((option) => option.name).sort();
		};
		const shared = [
			'bodyEncoding',
			'buttonUrlPrefix',
			'defaultCountryCode',
			'idempotencyKey',
			'limitWaitTime',
			'responseFormDescription',
			'responseFormTitle',
			'timeout',
		];
		expect(collections).toHaveLength(2);
		expect(names('approval')).toEqual(shared);
		expect(names('freeText')).toEqual(
			[...shared, 'messageButtonLabel', 'responseFormButtonLabel'].sort(),
		);
	});

	test('every field, option and row value has a description, and placeholders start with "e.g."', () => {
		let checked = 0;
		const check = (property: INodeProperties) => {
			checked++;
			if (!selectors.has(property.name))
				expect({ name: property.name, description: Boolean(property.description) }).toEqual({
					name: property.name,
					description: true,
				});
			if (
				property.placeholder &&
				property.type !== 'collection' &&
				property.type !== 'fixedCollection'
			) {
				expect({
					name: property.name,
					placeholder: property.placeholder.startsWith('e.g. '),
				}).toEqual({
					name: property.name,
					placeholder: true,
				});
			}
			if (property.type === 'collection') (property.options as INodeProperties[]).forEach(check);
			if (property.type === 'fixedCollection') {
				for (const group of property.options as INodePropertyCollection[])
					group.values.forEach(check);
			}
		};
		properties.forEach(check);
		// The top-level properties and, below them, the options and row values.
		expect(properties.length).toBeGreaterThan(0);
		expect(checked).toBeGreaterThan(properties.length);
	});

	test('identity: tool use, subtitle, credential with its test, themed icons and codex categories from n8n', () => {
		expect(description.name).toBe('messaging');
		expect(description.usableAsTool).toBe(true);
		expect(description.subtitle).toContain('$parameter');
		expect(description.credentials).toEqual([
			{ name: 'messagingApi', required: true, testedBy: 'testMessagingApiCredential' },
		]);
		expect(typeof node.methods.credentialTest.testMessagingApiCredential).toBe('function');
		const nodeDir = path.join(__dirname, '../../../nodes/Messaging');
		expect(description.icon).toEqual({
			light: 'file:messaging.svg',
			dark: 'file:messaging.dark.svg',
		});
		expect(
			existsSync(path.join(nodeDir, 'messaging.svg')) &&
				existsSync(path.join(nodeDir, 'messaging.dark.svg')),
		).toBe(true);
		const codex = JSON.parse(readFileSync(path.join(nodeDir, 'Messaging.node.json'), 'utf8'));
		expect(codex.node).toBe('n8n-nodes-messaging.messaging');
		const n8nCategories = [
			'Analytics',
			'Communication',
			'Data & Storage',
			'Development',
			'Finance & Accounting',
			'Marketing',
			'Miscellaneous',
			'Productivity',
			'Sales',
			'Utility',
		];
		expect(codex.categories.length).toBeGreaterThan(0);
		for (const category of codex.categories) expect(n8nCategories).toContain(category);
	});
});

describe('Messaging API credential', () => {
	const credential = new MessagingApi();

	test('has a password API key and a required base URL', () => {
		expect(credential.name).toBe('messagingApi');
		expect(credential.displayName).toBe('Messaging API');
		const [apiKey, baseUrl] = credential.properties;
		expect(apiKey).toMatchObject({
			name: 'apiKey',
			typeOptions: { password: true },
			required: true,
		});
		expect(baseUrl).toMatchObject({
			name: 'baseUrl',
			required: true,
			placeholder: 'e.g. https://api.example.com',
		});
		expect(credential.documentationUrl).toMatch(/^https:\/\//);
		const credentialDir = path.join(__dirname, '../../../credentials');
		expect(
			existsSync(path.join(credentialDir, 'messaging.svg')) &&
				existsSync(path.join(credentialDir, 'messaging.dark.svg')),
		).toBe(true);
	});

	test('adds the key as a Bearer header, keeps the other headers and leaves the request it was given alone', async () => {
		const authenticate = credential.authenticate as (
			credentials: ICredentialDataDecryptedObject,
			request: IHttpRequestOptions,
		) => Promise<IHttpRequestOptions>;
		const request: IHttpRequestOptions = {
			url: 'https://api.example.com/v1/sms/send',
			headers: { accept: 'application/json' },
		};
		const authenticated = await authenticate(
			{ apiKey: 'sk_live_123', baseUrl: 'https://api.example.com' },
			request,
		);
		expect(authenticated.headers).toEqual({
			accept: 'application/json',
			Authorization: 'Bearer sk_live_123',
		});
		expect(authenticated.url).toBe(request.url);
		expect(request.headers).toEqual({ accept: 'application/json' });
		const withoutHeaders = await authenticate({ apiKey: 'k2' }, { url: 'https://api.example.com' });
		expect(withoutHeaders.headers).toEqual({ Authorization: 'Bearer k2' });
	});
});
