import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { WebhookContext } from 'n8n-core';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	IWebhookData,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { runWorkflow } from '../../../helpers/runWorkflow';

import {
	logs,
	savedStaticData,
	triggerNode,
	triggerType,
	workflowOver,
	type LogEntry,
} from './n8nRuntime';

/** n8n answers a delivery only after inserting the execution: a few milliseconds of database writes. */
const EXECUTION_CREATION_MS = 5;

export interface TriggerHarnessOptions {
	signingSecret: string;
	parameters?: INodeParameters;
	/** The trigger's typeVersion; 1, as saved before inbound messages, unless given. */
	typeVersion?: number;
	/**
	 * Runs each execution through n8n-core's WorkflowExecute, started as n8n 2.40 starts it: once stored, before the
	 * static data is saved and the delivery answered.
	 */
	runExecutions?: boolean;
}

/** What the trigger node of one execution passed on, and when. */
export interface ExecutedRun {
	items: INodeExecutionData[];
	passedAt: number;
}

export interface TriggerHarness {
	url: string;
	workflowId: string;
	/** One entry per execution the trigger started, holding that execution's items. */
	runs: INodeExecutionData[][];
	logs: LogEntry[];
	staticData(): IDataObject;
	/** Replaces the stored static data, as another n8n process saving it would. */
	setStaticData(staticData: IDataObject): void;
	/** How often the static data was saved. */
	staticDataSaves(): number;
	/** When each save landed (epoch ms). */
	saveTimes: number[];
	/** With `runExecutions`: each execution's run, settled once its trigger node has passed its items on. */
	executions: Array<Promise<ExecutedRun>>;
	/** The next delivery that starts an execution dies with its process before n8n saves or answers anything. */
	dieBeforeNextSave(): void;
	/** Requests whose webhook() has not returned yet: what n8n still holds per request. */
	requestsInWebhook(): number;
	/** Requests whose webhook() was called, returned or not. */
	webhookCalls(): number;
	/** Changes the signing secret in the credential, as a user editing it would. */
	setSigningSecret(signingSecret: string): void;
	/** How often the node read the credential. */
	credentialReads(): number;
	/** The next `count` deliveries that start an execution run it, then lose their 200: the connection drops. */
	loseNextAcknowledgements(count: number): void;
	/** n8n fails to create the execution for the next `count` deliveries that would start one, and answers 500. */
	/** n8n answers the next `count` hand-offs 500 (no execution), `afterMs` after the trigger returned. */
	failNextHandOffs(count: number, afterMs?: number): void;
	/**
	 * Holds the save of the delivery numbered `delivery` (0, 1, … in arrival order) for the milliseconds returned, or
	 * until the promise returned settles, so saves land in another order than they were accepted, as on a busy database.
	 */
	delaySaves(delayOf: (delivery: number) => number | Promise<void>): void;
	/**
	 * Serialises each save at once but lands it (stores it, then answers) after the milliseconds returned for the
	 * delivery numbered `delivery`: saves land in another order than n8n serialised them, as PostgreSQL's two pooled
	 * connections can commit them, and the last to land wins whole.
	 */
	delayLandings(delayOf: (delivery: number) => number): void;
	/** An n8n whose order of operations differs from 2.40's: it builds its second Workflow after the trigger's rewrite. */
	buildSecondWorkflowLate(): void;
	/** An n8n that no longer saves a webhook's static data at all. */
	skipStaticDataSaves(): void;
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
	response.end(body === undefined ? undefined : JSON.stringify(body));
}

/** What n8n 2.40 answers for `onReceived` (webhook-helpers and webhook-on-received-response-extractor). */
function onReceivedBody(result: IWebhookResponseData): unknown {
	if (result.workflowData === undefined)
		return result.webhookResponse ?? { message: 'Webhook call received' };
	const responseData = triggerType.description.webhooks![0].responseData ?? 'firstEntryJson';
	if (responseData === 'noData') return undefined;
	if (responseData) return responseData;
	return result.webhookResponse ?? { message: 'Workflow was started' };
}

let harnessCount = 0;

/** The execution n8n starts for a delivery: the trigger node first, fed what webhook() handed over. */
async function runExecution(
	node: INode,
	workflowId: string,
	workflowData: INodeExecutionData[][],
): Promise<ExecutedRun> {
	const { run } = await runWorkflow({
		workflow: { name: 'Delivery events', nodes: [node], connections: {} },
		credentials: { baseUrl: 'http://127.0.0.1', apiKey: 'unused' },
		items: workflowData[0],
		workflowId,
		mode: 'webhook',
	});
	const task = run.data.resultData.runData[node.name]?.[0];
	return {
		items: task?.data?.main[0] ?? [],
		passedAt: task ? task.startTime + task.executionTime : NaN,
	};
}

/**
 * Hosts the trigger's webhook() on a real HTTP server, with n8n-core's own WebhookContext, and answers as
 * n8n 2.40's webhook handler does for `responseMode: 'onReceived'`: the node's own response when it set
 * `noWebhookResponse`; without an execution, 200 with its `webhookResponse`; with one, 200 only once the
 * execution exists, 500 when it could not be created. Static data is loaded for every request and saved when
 * it changed, unless the execution could not be created. Each harness is a workflow of its own.
 */
export async function startTriggerHarness(options: TriggerHarnessOptions): Promise<TriggerHarness> {
	logs.length = 0;
	const node = triggerNode(options.parameters, options.typeVersion);
	const workflowId = `trigger-harness-${++harnessCount}-${Date.now()}`;
	const webhookDescription = triggerType.description.webhooks![0];
	let storedStaticData: IDataObject = {};
	let staticDataSaves = 0;
	let signingSecret = options.signingSecret;
	let credentialReads = 0;
	let acknowledgementsToLose = 0;
	let handOffsToFail = 0;
	let handOffFailureDelayMs = 0;
	let deliveries = 0;
	let saveDelayOf: (delivery: number) => number | Promise<void> = () => 0;
	let landingDelayOf: (delivery: number) => number = () => 0;
	let secondWorkflowLate = false;
	let savesSkipped = false;
	let inWebhook = 0;
	let webhookCalls = 0;
	let dieBeforeSave = false;
	const runs: INodeExecutionData[][] = [];
	const saveTimes: number[] = [];
	const executions: Array<Promise<ExecutedRun>> = [];
	const died: ServerResponse[] = [];

	async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const delivery = deliveries++;
		const carrier = request as IncomingMessage & { rawBody?: Buffer; body: unknown };
		const body = await readBody(request);
		// Like n8n: a multipart body goes to the form parser and never becomes `rawBody`.
		if (!request.headers['content-type']?.startsWith('multipart/form-data')) carrier.rawBody = body;
		carrier.body = {};

		const loadedStaticData = JSON.parse(JSON.stringify(storedStaticData)) as IDataObject;
		const workflow = workflowOver(node, loadedStaticData, workflowId);
		const additionalData = {
			httpRequest: request,
			httpResponse: response,
			credentialsHelper: {
				getDecrypted: async () => {
					credentialReads++;
					return { signingSecret };
				},
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
		const context = new WebhookContext(
			workflow,
			node,
			additionalData,
			'webhook',
			webhookData,
			[],
			null,
		);

		let result: IWebhookResponseData;
		try {
			inWebhook++;
			webhookCalls++;
			result = await triggerType.webhook.call(context);
		} catch (error) {
			sendJson(response, 500, {
				message: `Workflow could not be started: ${(error as Error).message}`,
			});
			return;
		} finally {
			inWebhook--;
		}

		if (result.workflowData !== undefined && handOffsToFail > 0) {
			handOffsToFail--;
			await new Promise((resolve) => setTimeout(resolve, handOffFailureDelayMs));
			sendJson(response, 500, { code: 0, message: 'There was a problem executing the workflow' });
			return;
		}
		if (result.workflowData !== undefined) {
			runs.push(result.workflowData[0]);
			if (options.runExecutions)
				executions.push(runExecution(node, workflowId, result.workflowData));
			if (dieBeforeSave) {
				dieBeforeSave = false;
				died.push(response);
				response.socket?.destroy();
				return;
			}
			// As n8n 2.40 does before it saves: a second Workflow over the object it loaded (resetting its change
			// marker), then the database writes that create the execution.
			if (!secondWorkflowLate) workflowOver(node, loadedStaticData, workflowId);
			await new Promise((resolve) => setTimeout(resolve, EXECUTION_CREATION_MS));
			if (secondWorkflowLate) workflowOver(node, loadedStaticData, workflowId);
		}
		const saveDelay = saveDelayOf(delivery);
		if (typeof saveDelay !== 'number') await saveDelay;
		else if (saveDelay > 0) await new Promise((resolve) => setTimeout(resolve, saveDelay));
		// n8n serialises the static data when it writes it, and clears the marker once the write succeeded.
		if (workflow.staticData.__dataChanged === true && !savesSkipped) {
			const serialised = savedStaticData(workflow);
			const landingDelay = landingDelayOf(delivery);
			if (landingDelay > 0) await new Promise((resolve) => setTimeout(resolve, landingDelay));
			storedStaticData = serialised;
			staticDataSaves++;
			saveTimes.push(Date.now());
			workflow.staticData.__dataChanged = false;
		}

		if (result.workflowData !== undefined && acknowledgementsToLose > 0) {
			acknowledgementsToLose--;
			// The execution exists and n8n writes its answer, but the connection is gone: the sender never reads it.
			response.socket?.destroy();
		}
		if (result.noWebhookResponse !== true) sendJson(response, 200, onReceivedBody(result));
	}

	const server: Server = createServer((request, response) => {
		handle(request, response).catch((error: Error) =>
			sendJson(response, 500, { message: error.message }),
		);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;

	return {
		url: `http://127.0.0.1:${port}/webhook/messaging-events`,
		workflowId,
		runs,
		logs,
		staticData: () => storedStaticData,
		setStaticData: (staticData) => {
			storedStaticData = staticData;
		},
		staticDataSaves: () => staticDataSaves,
		saveTimes,
		executions,
		dieBeforeNextSave: () => {
			dieBeforeSave = true;
		},
		requestsInWebhook: () => inWebhook,
		webhookCalls: () => webhookCalls,
		setSigningSecret: (secret) => {
			signingSecret = secret;
		},
		credentialReads: () => credentialReads,
		loseNextAcknowledgements: (count) => {
			acknowledgementsToLose = count;
		},
		failNextHandOffs: (count, afterMs = 0) => {
			handOffsToFail = count;
			handOffFailureDelayMs = afterMs;
		},
		delaySaves: (delayOf) => {
			saveDelayOf = delayOf;
		},
		delayLandings: (delayOf) => {
			landingDelayOf = delayOf;
		},
		buildSecondWorkflowLate: () => {
			secondWorkflowLate = true;
		},
		skipStaticDataSaves: () => {
			savesSkipped = true;
		},
		close: () =>
			new Promise<void>((resolve, reject) => {
				// What a dead process never wrote: the trigger stops waiting for it.
				for (const response of died.splice(0)) sendJson(response, 500, {});
				server.closeAllConnections();
				server.close((error) => (error ? reject(error) : resolve()));
			}),
	};
}
