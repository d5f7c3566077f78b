import 'reflect-metadata';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

import type { Logger } from '@n8n/backend-common';
import type { Container as DiContainer } from '@n8n/di';
import { InstanceSettings, WebhookContext } from 'n8n-core';
import {
	NodeHelpers,
	Workflow,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type INodeParameters,
	type INodeTypes,
	type IWebhookData,
	type IWebhookResponseData,
	type IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { MessagingTrigger } from '../../../../nodes/MessagingTrigger/MessagingTrigger.node';

export interface LogEntry {
	level: 'debug' | 'info' | 'warn' | 'error';
	message: string;
	meta?: unknown;
}

export interface TriggerHarnessOptions {
	signingSecret: string;
	parameters?: INodeParameters;
}

export interface TriggerHarness {
	url: string;
	/** One entry per execution the trigger started, holding that execution's items. */
	runs: INodeExecutionData[][];
	logs: LogEntry[];
	staticData(): IDataObject;
	/** Makes the next answers after a started execution a 500, as if the acknowledgement were lost. */
	loseNextAcknowledgements(count: number): void;
	close(): Promise<void>;
}

const logs: LogEntry[] = [];

function recordingLogger(): Logger {
	const record =
		(level: LogEntry['level']) =>
		(message: string, meta?: unknown): void => {
			logs.push({ level, message, meta });
		};
	return {
		debug: record('debug'),
		info: record('info'),
		warn: record('warn'),
		error: record('error'),
		scoped: () => recordingLogger(),
	} as unknown as Logger;
}

/** n8n-core resolves its logger through its own copies of @n8n/di and @n8n/backend-common. */
const requireFromN8nCore = createRequire(require.resolve('n8n-core'));
const { Container } = requireFromN8nCore('@n8n/di') as { Container: typeof DiContainer };
const LoggerToken = (requireFromN8nCore('@n8n/backend-common') as { Logger: typeof Logger }).Logger;

Container.set(LoggerToken, recordingLogger());
// The webhook context only keeps a reference to the instance settings; nothing in it is read here.
Container.set(InstanceSettings, {} as InstanceSettings);

function readBody(request: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => resolve(Buffer.concat(chunks)));
		request.on('error', reject);
	});
}

function sendJson(response: ServerResponse, statusCode: number, body: unknown): void {
	response.statusCode = statusCode;
	response.setHeader('content-type', 'application/json');
	response.end(JSON.stringify(body));
}

function withoutChangeMarker(staticData: IDataObject): IDataObject {
	const copy = JSON.parse(JSON.stringify(staticData)) as IDataObject;
	delete copy.__dataChanged;
	return copy;
}

/**
 * Hosts the trigger's webhook() on a real HTTP server, with n8n-core's own WebhookContext,
 * and answers as n8n's webhook handler does for `responseMode: 'onReceived'`:
 * the node's own response when it set `noWebhookResponse`, otherwise 200 with `webhookResponse`.
 * Static data is loaded per request and saved only when the request was handled, like n8n does.
 */
export async function startTriggerHarness(options: TriggerHarnessOptions): Promise<TriggerHarness> {
	logs.length = 0;
	const nodeType = new MessagingTrigger();
	const node: INode = {
		id: 'messaging-trigger',
		name: 'Messaging Trigger',
		type: 'n8n-nodes-messaging.messagingTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { messagingWebhookApi: { id: 'cred-1', name: 'Signing secret' } },
	};
	node.parameters =
		NodeHelpers.getNodeParameters(
			nodeType.description.properties,
			options.parameters ?? {},
			true,
			false,
			node,
			nodeType.description,
		) ?? {};
	const nodeTypes: INodeTypes = {
		getByName: () => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	};

	let savedStaticData: IDataObject = {};
	let acknowledgementsToLose = 0;
	const runs: INodeExecutionData[][] = [];

	async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const rawBody = await readBody(request);
		const carrier = request as IncomingMessage & { rawBody: Buffer; body: unknown };
		carrier.rawBody = rawBody;
		carrier.body = {};

		const workflow = new Workflow({
			id: 'workflow-1',
			name: 'Delivery events',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes,
			staticData: JSON.parse(JSON.stringify(savedStaticData)) as IDataObject,
		});
		const additionalData = {
			httpRequest: request,
			httpResponse: response,
			credentialsHelper: {
				getDecrypted: async () => ({ signingSecret: options.signingSecret }),
				isCredentialUsableByNode: () => true,
			},
		} as unknown as IWorkflowExecuteAdditionalData;
		const webhookDescription = nodeType.description.webhooks![0];
		const webhookData: IWebhookData = {
			httpMethod: 'POST',
			node: node.name,
			path: webhookDescription.path,
			webhookDescription,
			workflowId: workflow.id,
			workflowExecuteAdditionalData: additionalData,
		};
		const context = new WebhookContext(workflow, node, additionalData, 'webhook', webhookData, [], null);

		let result: IWebhookResponseData;
		try {
			result = await nodeType.webhook.call(context);
		} catch (error) {
			sendJson(response, 500, { message: `Workflow could not be started: ${(error as Error).message}` });
			return;
		}

		if (workflow.staticData.__dataChanged === true) {
			savedStaticData = withoutChangeMarker(workflow.staticData);
		}
		if (result.workflowData !== undefined) runs.push(result.workflowData[0]);
		if (result.noWebhookResponse === true) return;

		if (result.workflowData !== undefined && acknowledgementsToLose > 0) {
			acknowledgementsToLose--;
			sendJson(response, 500, { message: 'acknowledgement lost on purpose by the test' });
			return;
		}
		sendJson(response, 200, result.webhookResponse ?? { message: 'Webhook call received' });
	}

	const server: Server = createServer((request, response) => {
		handle(request, response).catch((error: Error) => sendJson(response, 500, { message: error.message }));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;

	return {
		url: `http://127.0.0.1:${port}/webhook/messaging-events`,
		runs,
		logs,
		staticData: () => savedStaticData,
		loseNextAcknowledgements: (count) => {
			acknowledgementsToLose = count;
		},
		close: () =>
			new Promise<void>((resolve, reject) => {
				server.closeAllConnections();
				server.close((error) => (error ? reject(error) : resolve()));
			}),
	};
}
