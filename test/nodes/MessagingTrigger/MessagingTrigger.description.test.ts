import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
	NodeHelpers,
	type ICredentialType,
	type INodeParameters,
	type INodePropertyOptions,
} from 'n8n-workflow';

import { MessagingWebhookApi } from '../../../credentials/MessagingWebhookApi.credentials';
import { MessagingTrigger } from '../../../nodes/MessagingTrigger/MessagingTrigger.node';

const root = join(__dirname, '..', '..', '..');
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
	name: string;
	n8n: { nodes: string[]; credentials: string[] };
};

describe('Messaging Trigger description', () => {
	const { description, methods } = new MessagingTrigger();

	it('is a trigger with one POST webhook answered on receipt', () => {
		expect(description).toEqual(
			expect.objectContaining({
				name: 'messagingTrigger',
				group: ['trigger'],
				inputs: [],
				version: [1, 1.1, 2],
				defaultVersion: 2,
			}),
		);
		expect(description.webhooks).toEqual([
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				responseData: '',
				path: 'messaging-events',
			},
		]);
	});

	it('requires the signing-secret credential and names a credential test that exists', () => {
		expect(description.credentials).toEqual([
			{
				name: 'messagingWebhookApi',
				required: true,
				testedBy: 'messagingWebhookSigningSecretTest',
			},
		]);
		expect(typeof methods.credentialTest.messagingWebhookSigningSecretTest).toBe('function');
	});

	/** The parameters n8n completes a saved node with when it loads it (the Workflow constructor does this). */
	function loaded(typeVersion: number, saved: INodeParameters = {}): INodeParameters {
		const node = {
			id: 'n',
			name: 'Messaging Trigger',
			type: 'n8n-nodes-messaging.messagingTrigger',
			typeVersion,
			position: [0, 0] as [number, number],
			parameters: saved,
		};
		return (
			NodeHelpers.getNodeParameters(
				description.properties,
				saved,
				true,
				false,
				node,
				description,
			) ?? {}
		);
	}

	it('gives a new trigger (1.1) both event kinds, and a trigger saved before them (1) status updates only', () => {
		expect(loaded(1.1).events).toEqual(['message.inbound', 'message.status']);
		expect(loaded(1).events).toEqual(['message.status']);
		expect(loaded(1, { events: ['message.inbound'] }).events).toEqual(['message.inbound']);
	});

	it('gives a new trigger (2) batching beside the event selection, and keeps triggers saved before it one execution per delivery', () => {
		expect(loaded(2)).toEqual(
			expect.objectContaining({
				events: ['message.inbound', 'message.status'],
				batchWaitMs: 5000,
				batchMaxEvents: 100,
			}),
		);
		const names = description.properties.map((property) => property.name);
		expect(names.indexOf('batchWaitMs')).toBeGreaterThan(names.lastIndexOf('statuses'));
		expect(names.indexOf('batchWaitMs')).toBeLessThan(names.indexOf('options'));
		for (const saved of [1, 1.1]) {
			expect(loaded(saved)).not.toHaveProperty('batchWaitMs');
			expect(loaded(saved)).not.toHaveProperty('batchMaxEvents');
		}
		expect(loaded(2, { batchWaitMs: 0 })).not.toHaveProperty('batchMaxEvents');
	});

	it('offers Inbound Messages and Status Updates, alphabetically, as a required choice in both versions', () => {
		const selectors = description.properties.filter((property) => property.name === 'events');
		expect(selectors).toHaveLength(2);
		for (const selector of selectors) {
			expect(selector).toEqual(
				expect.objectContaining({ type: 'multiOptions', required: true, displayName: 'Events' }),
			);
			expect(
				(selector.options as INodePropertyOptions[]).map((option) => [option.name, option.value]),
			).toEqual([
				['Inbound Messages', 'message.inbound'],
				['Status Updates', 'message.status'],
			]);
		}
	});

	it('shows Channels and Statuses only while status updates are selected', () => {
		expect(Object.keys(loaded(1.1))).toEqual(expect.arrayContaining(['channels', 'statuses']));
		expect(Object.keys(loaded(1))).toEqual(expect.arrayContaining(['channels', 'statuses']));
		const inboundOnly = loaded(1.1, { events: ['message.inbound'], statuses: ['failed'] });
		expect(inboundOnly).not.toHaveProperty('channels');
		expect(inboundOnly).not.toHaveProperty('statuses');
	});

	it('offers the documented channels and statuses, alphabetically, defaulting to all', () => {
		const options = (name: string) =>
			description.properties.find((property) => property.name === name)!
				.options as INodePropertyOptions[];
		expect(options('channels').map((option) => option.value)).toEqual(['sms', 'whatsapp']);
		expect(options('statuses').map((option) => option.value)).toEqual([
			'delivered',
			'failed',
			'queued',
			'read',
			'sent',
			'undelivered',
		]);
		for (const name of ['channels', 'statuses']) {
			const names = options(name).map((option) => option.name);
			expect(names).toEqual([...names].sort());
			expect(description.properties.find((property) => property.name === name)!.default).toEqual(
				[],
			);
		}
	});

	it('has distinct light and dark icons that exist next to the node', () => {
		const icon = description.icon as { light: string; dark: string };
		expect(icon.light).not.toBe(icon.dark);
		for (const file of [icon.light, icon.dark]) {
			expect(existsSync(join(root, 'nodes', 'MessagingTrigger', file.replace('file:', '')))).toBe(
				true,
			);
		}
	});

	it('has a codex file naming the installed node type', () => {
		const codex = JSON.parse(
			readFileSync(join(root, 'nodes', 'MessagingTrigger', 'MessagingTrigger.node.json'), 'utf8'),
		) as { node: string };
		expect(codex.node).toBe(`${packageJson.name}.${description.name}`);
	});

	it('is registered in package.json with its credential', () => {
		expect(packageJson.n8n.nodes).toContain('dist/nodes/MessagingTrigger/MessagingTrigger.node.js');
		expect(packageJson.n8n.credentials).toContain(
			'dist/credentials/MessagingWebhookApi.credentials.js',
		);
	});
});

describe('Messaging Webhook credential', () => {
	const credential = new MessagingWebhookApi();

	it('holds one required, hidden signing secret and authenticates nothing outbound', () => {
		expect(credential.name).toBe('messagingWebhookApi');
		expect(credential.properties).toEqual([
			expect.objectContaining({
				name: 'signingSecret',
				type: 'string',
				required: true,
				typeOptions: { password: true },
			}),
		]);
		expect((credential as ICredentialType).authenticate).toBeUndefined();
	});

	it('has light and dark icons that exist', () => {
		for (const file of [credential.icon.light, credential.icon.dark]) {
			expect(existsSync(join(root, 'credentials', file.replace('file:', '')))).toBe(true);
		}
	});
});
