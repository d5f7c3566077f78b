import { createRequire } from 'node:module';

import type { Container as DiContainer } from '@n8n/di';
import {
	ExecutionLifecycleHooks,
	InstanceSettings,
	validateUrlSignature,
	WebhookContext,
	WorkflowExecute,
} from 'n8n-core';
import { createRunExecutionData, Workflow } from 'n8n-workflow';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeTypes,
	IRun,
	IRunExecutionData,
	IWebhookData,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { MessagingApi } from '../../credentials/MessagingApi.credentials';
import { TestCredentialsHelper } from './credentialsHelper';
import { messagingType, testNodeTypes } from './nodeTypes';
import type { WorkflowJson } from './runWorkflow';

/**
 * A waiting execution as n8n keeps it, and n8n's two ways to continue one, done with n8n-core's own parts:
 * - an answer link: n8n's waiting-webhook route (the server's WaitingWebhooks): check the link's signature for
 *   its execution and node, refuse a finished execution, run the node's webhook, queue its items as the node's
 *   data, resume;
 * - the wait time running out: n8n's WaitTracker runs the stored execution again as it is.
 * The stored execution is a JSON copy, as n8n's database holds it, so nothing depends on objects in memory.
 */

const WAITING_BASE = 'http://127.0.0.1:5678/webhook-waiting';
const requireFromN8nCore = createRequire(require.resolve('n8n-core'));
const { Container } = requireFromN8nCore('@n8n/di') as { Container: typeof DiContainer };

export interface StoredExecution {
	id: string;
	data: IRunExecutionData;
	finished: boolean;
	status: IRun['status'];
}

export interface LinkAnswer {
	status: number;
	body: string;
	/** The execution's run when the link resumed it. */
	run?: IRun;
}

export interface LinkRequest {
	method?: 'GET' | 'POST';
	/** A phone's browser unless given; null sends no user agent at all. */
	userAgent?: string | null;
	body?: IDataObject;
}

function additionalData(
	executionId: string,
	credentials: { baseUrl: string; apiKey: string },
	workflow: WorkflowJson,
) {
	const hooks = new ExecutionLifecycleHooks(
		'manual',
		executionId,
		workflow as unknown as IWorkflowBase,
	);
	const finished = new Promise<IRun>((resolve) =>
		hooks.addHandler('workflowExecuteAfter', (run) => resolve(run)),
	);
	const data: Partial<IWorkflowExecuteAdditionalData> = {
		credentialsHelper: new TestCredentialsHelper(
			{ messagingApi: new MessagingApi() },
			{ messagingApi: credentials },
		),
		hooks,
		executionId,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678/',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookWaitingBaseUrl: WAITING_BASE,
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		variables: {},
		logAiEvent: () => undefined,
		getRunExecutionData: async () => undefined,
	};
	return { data: data as IWorkflowExecuteAdditionalData, finished };
}

function fakeResponse() {
	const answer = { status: 200, body: '', headers: {} as Record<string, string> };
	const response = {
		headersSent: false,
		setHeader: (name: string, value: string) => void (answer.headers[name.toLowerCase()] = value),
		status(code: number) {
			answer.status = code;
			return response;
		},
		send(body: string) {
			answer.body = body;
			response.headersSent = true;
			return response;
		},
	};
	return { answer, response };
}

export class WaitingExecutions {
	private readonly stored = new Map<string, StoredExecution>();

	private nextId = 100;

	constructor(
		private readonly workflowJson: WorkflowJson,
		private readonly credentials: () => { baseUrl: string; apiKey: string },
		private readonly nodeTypes: INodeTypes = testNodeTypes,
	) {}

	private workflow(): Workflow {
		return new Workflow({
			id: 'approval-workflow',
			name: 'Approval',
			nodes: structuredClone(this.workflowJson.nodes),
			connections: this.workflowJson.connections,
			active: true,
			nodeTypes: this.nodeTypes,
			settings: this.workflowJson.settings,
		});
	}

	private async execute(
		id: string,
		data: IRunExecutionData,
		workflow = this.workflow(),
	): Promise<IRun> {
		const { data: additional, finished } = additionalData(
			id,
			this.credentials(),
			this.workflowJson,
		);
		await new WorkflowExecute(additional, 'manual', data).processRunExecutionData(workflow);
		const run = await finished;
		this.stored.set(id, {
			id,
			data: JSON.parse(JSON.stringify(run.data)),
			finished: run.finished === true,
			status: run.status,
		});
		return run;
	}

	/** Starts an execution at the node without inputs with `items`; it runs until it ends or waits. */
	async start(items: INodeExecutionData[]): Promise<{ id: string; run: IRun }> {
		const id = String(this.nextId++);
		const workflow = this.workflow();
		const targets = new Set(
			Object.values(this.workflowJson.connections).flatMap((c) =>
				c.main.flat().map((l) => l!.node),
			),
		);
		const entry = this.workflowJson.nodes.find((node) => !targets.has(node.name))!;
		const data = createRunExecutionData({
			executionData: {
				nodeExecutionStack: [
					{ node: workflow.getNode(entry.name)!, data: { main: [items] }, source: null },
				],
			},
		});
		return { id, run: await this.execute(id, data, workflow) };
	}

	execution(id: string): StoredExecution {
		return structuredClone(this.stored.get(id)!);
	}

	/** Changes a stored execution, e.g. into what an earlier version of the node left waiting. */
	rewrite(id: string, change: (data: IRunExecutionData) => void): void {
		change(this.stored.get(id)!.data);
	}

	/** What n8n's WaitTracker does when the wait time is over. */
	async timeOut(id: string): Promise<IRun> {
		const { data } = this.execution(id);
		if (!data.waitTill) throw new Error(`Execution ${id} is not waiting`);
		return await this.execute(id, data);
	}

	/** Opens an answer link the way n8n's waiting-webhook route serves it. */
	async open(link: string, request: LinkRequest = {}): Promise<LinkAnswer> {
		const url = new URL(link);
		const [executionId, nodeId] = url.pathname
			.slice(new URL(WAITING_BASE).pathname.length + 1)
			.split('/');
		const execution = this.stored.get(executionId);
		if (!execution) return { status: 404, body: `The execution "${executionId}" does not exist.` };
		const secret = Container.get(InstanceSettings).hmacSignatureSecret;
		const signature = url.searchParams.get('signature') ?? '';
		if (!validateUrlSignature(signature, url, secret))
			return { status: 401, body: 'form-invalid-token' };
		if (execution.finished || !execution.data.waitTill)
			return { status: 200, body: 'send-and-wait-no-action-required' };
		return await this.runWebhook(execution, decodeURIComponent(nodeId), url, request);
	}

	private async runWebhook(
		execution: StoredExecution,
		nodeId: string,
		url: URL,
		request: LinkRequest,
	): Promise<LinkAnswer> {
		const data = structuredClone(execution.data);
		const workflow = this.workflow();
		const node = Object.values(workflow.nodes).find(
			(candidate) => candidate.id === nodeId,
		) as INode;
		const method = request.method ?? 'GET';
		const { answer, response } = fakeResponse();
		const { data: additional } = additionalData(
			execution.id,
			this.credentials(),
			this.workflowJson,
		);
		additional.httpRequest = {
			method,
			headers:
				request.userAgent === null
					? {}
					: { 'user-agent': request.userAgent ?? 'Mozilla/5.0 (iPhone) Safari/604.1' },
			query: Object.fromEntries(url.searchParams),
			body: request.body ?? {},
			params: {},
		} as never;
		additional.httpResponse = response as never;
		const description = messagingType.description.webhooks!.find(
			(webhook) => webhook.httpMethod === method,
		)!;
		const webhookData = {
			httpMethod: method,
			node: node.name,
			path: nodeId,
			webhookDescription: description,
			workflowId: workflow.id,
		} as IWebhookData;
		const context = new WebhookContext(workflow, node, additional, 'manual', webhookData, [], data);
		const result = await messagingType.webhook!.call(context);
		if (!result.workflowData) return { status: answer.status, body: answer.body };
		const stackEntry = data.executionData!.nodeExecutionStack[0];
		stackEntry.node.disabled = true;
		data.waitTill = undefined;
		data.resultData.runData[data.resultData.lastNodeExecuted!].pop();
		stackEntry.data.main = result.workflowData;
		stackEntry.metadata = { ...stackEntry.metadata, forwardAllOutputs: true };
		return {
			status: answer.status,
			body: answer.body,
			run: await this.execute(execution.id, data, workflow),
		};
	}
}

/** The answer links of a question the sandbox received: session text lines, or template button suffixes. */
export function linksInMessage(fields: Record<string, string>): string[] {
	if (fields.type === 'session') return fields.text.match(/https?:\/\/\S+/g) ?? [];
	const { buttons } = JSON.parse(fields.components) as { buttons: Record<string, string> };
	return Object.keys(buttons)
		.sort()
		.map((position) => `${WAITING_BASE}/${buttons[position]}`);
}
