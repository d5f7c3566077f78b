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
	/** Turns the node's answer into a 500 for the next `count` deliveries that started an execution, as if it were lost. */
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

/** Holds what the node writes, so the test can stand between it and the sender. */
class BufferedAnswer {
	statusCode = 200;
	private readonly headers: Record<string, string | number> = {};
	private body: string | undefined;

	setHeader(name: string, value: string | number): this {
		this.headers[name] = value;
		return this;
	}

	end(chunk?: string): this {
		this.body = chunk;
		return this;
	}

	replayTo(response: ServerResponse): void {
		response.statusCode = this.statusCode;
		for (const [name, value] of Object.entries(this.headers)) response.setHeader(name, value);
		response.end(this.body);
	}
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
		const carrier = request as IncomingMessage & { rawBody?: Buffer; body: unknown };
		const body = await readBody(request);
		// Like n8n: a multipart body goes to the form parser and never becomes `rawBody`.
		if (!request.headers['content-type']?.startsWith('multipart/form-data')) carrier.rawBody = body;
		carrier.body = {};

		const workflow = triggerWorkflow(node, storedStaticData);
		const nodeAnswer = new BufferedAnswer();
		const additionalData = {
			httpRequest: request,
			httpResponse: nodeAnswer,
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

		// n8n 2.40 saves static data in the callback of the webhook's answer. When n8n itself answers an
		// `onReceived` run, it does so after starting the execution, whose Workflow resets the change
		// marker, so the changes are not saved (seen against a real n8n 2.40.7).
		const answeredBeforeRun = result.noWebhookResponse === true || result.workflowData === undefined;
		if (answeredBeforeRun && workflow.staticData.__dataChanged === true) {
			storedStaticData = savedStaticData(workflow);
		}
		if (result.workflowData !== undefined) runs.push(result.workflowData[0]);

		if (result.workflowData !== undefined && acknowledgementsToLose > 0) {
			acknowledgementsToLose--;
			sendJson(response, 500, { message: 'acknowledgement lost on purpose by the test' });
			return;
		}
		if (result.noWebhookResponse === true) {
			nodeAnswer.replayTo(response);
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
