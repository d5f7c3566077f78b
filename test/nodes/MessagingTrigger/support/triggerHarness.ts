import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { WebhookContext } from 'n8n-core';
import type {
	IDataObject,
	INodeExecutionData,
	INodeParameters,
	IWebhookData,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import {
	logs,
	savedStaticData,
	triggerNode,
	triggerType,
	triggerWorkflow,
	type LogEntry,
} from './n8nRuntime';

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
	/** Answers 500 after the next `count` started executions, as if the acknowledgement were lost. */
	loseNextAcknowledgements(count: number): void;
	close(): Promise<void>;
}

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

/** What n8n 2.40 answers for `onReceived` (webhook-helpers and webhook-on-received-response-extractor). */
function onReceivedBody(result: IWebhookResponseData): unknown {
	if (result.workflowData === undefined) return result.webhookResponse ?? { message: 'Webhook call received' };
	const responseData = triggerType.description.webhooks![0].responseData ?? 'firstEntryJson';
	if (responseData === 'noData') return undefined;
	if (responseData) return responseData;
	return result.webhookResponse ?? { message: 'Workflow was started' };
}

/**
 * Hosts the trigger's webhook() on a real HTTP server, with n8n-core's own WebhookContext,
 * and answers as n8n's webhook handler does for `responseMode: 'onReceived'`: the node's own
 * response when it set `noWebhookResponse`, otherwise 200 with its `webhookResponse`.
 * Static data is loaded for every request and saved when the request was handled, as n8n does.
 */
export async function startTriggerHarness(options: TriggerHarnessOptions): Promise<TriggerHarness> {
	logs.length = 0;
	const node = triggerNode(options.parameters);
	const webhookDescription = triggerType.description.webhooks![0];
	let storedStaticData: IDataObject = {};
	let acknowledgementsToLose = 0;
	const runs: INodeExecutionData[][] = [];

	async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const carrier = request as IncomingMessage & { rawBody: Buffer; body: unknown };
		carrier.rawBody = await readBody(request);
		carrier.body = {};

		const workflow = triggerWorkflow(node, storedStaticData);
		const additionalData = {
			httpRequest: request,
			httpResponse: response,
			credentialsHelper: {
				getDecrypted: async () => ({ signingSecret: options.signingSecret }),
				isCredentialUsableByNode: () => true,
			},
		} as unknown as IWorkflowExecuteAdditionalData;
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
			result = await triggerType.webhook.call(context);
		} catch (error) {
			sendJson(response, 500, { message: `Workflow could not be started: ${(error as Error).message}` });
			return;
		}

		if (workflow.staticData.__dataChanged === true) storedStaticData = savedStaticData(workflow);
		if (result.workflowData !== undefined) runs.push(result.workflowData[0]);
		if (result.noWebhookResponse === true) return;

		if (result.workflowData !== undefined && acknowledgementsToLose > 0) {
			acknowledgementsToLose--;
			sendJson(response, 500, { message: 'acknowledgement lost on purpose by the test' });
			return;
		}
		sendJson(response, 200, onReceivedBody(result));
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
		staticData: () => storedStaticData,
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
