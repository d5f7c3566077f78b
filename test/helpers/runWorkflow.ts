import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import { createRunExecutionData, Workflow } from 'n8n-workflow';
import type {
	ExecutionError,
	INode,
	INodeExecutionData,
	INodeType,
	IRun,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { MessagingApi } from '../../credentials/MessagingApi.credentials';
import { TestCredentialsHelper } from './credentialsHelper';
import { processedDataStore } from './processedDataStore';
import { MESSAGING_NODE_TYPE } from './nodeFixtures';
import { testNodeTypes, testNodeTypesWith } from './nodeTypes';

export interface WorkflowJson {
	name?: string;
	nodes: INode[];
	connections: IWorkflowBase['connections'];
	settings?: IWorkflowBase['settings'];
}

export interface RunWorkflowOptions {
	workflow: WorkflowJson;
	credentials: { baseUrl: string; apiKey: string };
	/** Items fed to the entry node (the node without incoming connections); one empty item by default. */
	items?: Array<{ json: Record<string, unknown> }>;
	/** Overrides merged into the named node's parameters, e.g. { Messaging: { options: {...} } }. */
	parameters?: Record<string, Record<string, unknown>>;
	continueOnFail?: boolean;
	/** The Messaging node's Settings → On Error; wins over `continueOnFail`. */
	onError?: INode['onError'];
	/**
	 * The workflow's id, under which n8n files the node's send-once record: a fresh one per run unless given, so a
	 * run sees what an earlier one sent only when a test runs the same workflow again.
	 */
	workflowId?: string;
	/** Execution mode, as n8n tells the node: 'manual' unless given (e.g. 'retry', 'webhook'). */
	mode?: 'manual' | 'retry' | 'webhook' | 'trigger';
	/** Node types beyond the harness's own, by full type name. */
	extraNodeTypes?: Record<string, INodeType>;
}

export interface WorkflowRunResult {
	/** Output items of every node that ran, by node name (first run, first output). */
	outputs: Record<string, INodeExecutionData[]>;
	/** Items each node sent down its error output (On Error → Continue (using error output)), by node name. */
	errorOutputs: Record<string, INodeExecutionData[]>;
	error?: ExecutionError;
	run: IRun;
}

export function loadWorkflowFixture(name: string): WorkflowJson {
	const file = path.join(__dirname, '..', 'fixtures', 'workflows', `${name}.json`);
	return JSON.parse(readFileSync(file, 'utf8')) as WorkflowJson;
}

function entryNode(workflow: WorkflowJson): INode {
	const targets = new Set(
		Object.values(workflow.connections).flatMap((byType) =>
			Object.values(byType).flatMap((outputs) =>
				(outputs ?? []).flatMap((links) => (links ?? []).map((link) => link.node)),
			),
		),
	);
	const entry = workflow.nodes.find((node) => !targets.has(node.name));
	if (!entry) throw new Error('The workflow has no entry node');
	return entry;
}

function additionalDataFor(
	credentialsHelper: TestCredentialsHelper,
	hooks: ExecutionLifecycleHooks,
): IWorkflowExecuteAdditionalData {
	const data: Partial<IWorkflowExecuteAdditionalData> = {
		credentialsHelper,
		hooks,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://127.0.0.1/rest',
		instanceBaseUrl: 'http://127.0.0.1/',
		formBaseUrl: 'http://127.0.0.1/form',
		formWaitingBaseUrl: 'http://127.0.0.1/form-waiting',
		formTestBaseUrl: 'http://127.0.0.1/form-test',
		webhookBaseUrl: 'http://127.0.0.1/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1/webhook-test',
		mcpBaseUrl: 'http://127.0.0.1/mcp',
		mcpTestBaseUrl: 'http://127.0.0.1/mcp-test',
		variables: {},
		logAiEvent: () => undefined,
		executeWorkflow: async () => {
			throw new Error('Sub-workflows are not available in the test harness');
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
	};
	return data as IWorkflowExecuteAdditionalData;
}

/**
 * Runs workflow JSON through n8n-core's WorkflowExecute with our node types and the Messaging API
 * credential applied as n8n applies it, so requests go over real HTTP to whatever Base URL is given.
 */
export async function runWorkflow(options: RunWorkflowOptions): Promise<WorkflowRunResult> {
	const onError =
		options.onError ??
		(options.continueOnFail === undefined
			? undefined
			: options.continueOnFail
				? ('continueRegularOutput' as const)
				: ('stopWorkflow' as const));
	const nodes: INode[] = structuredClone(options.workflow.nodes).map((node) => ({
		...node,
		parameters: {
			...node.parameters,
			...(options.parameters?.[node.name] ?? {}),
		} as INode['parameters'],
		...(onError !== undefined && node.type === MESSAGING_NODE_TYPE ? { onError } : {}),
	}));
	const workflowData = { ...options.workflow, nodes };
	processedDataStore();
	const workflow = new Workflow({
		id: options.workflowId ?? `test-workflow-${randomUUID()}`,
		name: options.workflow.name ?? 'test',
		nodes,
		connections: options.workflow.connections,
		settings: options.workflow.settings,
		active: false,
		nodeTypes: options.extraNodeTypes ? testNodeTypesWith(options.extraNodeTypes) : testNodeTypes,
	});

	const credentialsHelper = new TestCredentialsHelper(
		{ messagingApi: new MessagingApi() },
		{ messagingApi: { baseUrl: options.credentials.baseUrl, apiKey: options.credentials.apiKey } },
	);
	const mode = options.mode ?? 'manual';
	const hooks = new ExecutionLifecycleHooks(
		mode,
		`test-execution-${randomUUID()}`,
		workflowData as unknown as IWorkflowBase,
	);
	const finished = new Promise<IRun>((resolve) =>
		hooks.addHandler('workflowExecuteAfter', (run) => resolve(run)),
	);

	const entry = workflow.getNode(entryNode(options.workflow).name)!;
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{
					node: entry,
					data: { main: [(options.items as INodeExecutionData[] | undefined) ?? [{ json: {} }]] },
					source: null,
				},
			],
		},
	});
	const workflowExecute = new WorkflowExecute(
		additionalDataFor(credentialsHelper, hooks),
		mode,
		runExecutionData,
	);
	await workflowExecute.processRunExecutionData(workflow);
	const run = await finished;

	const outputs: Record<string, INodeExecutionData[]> = {};
	const errorOutputs: Record<string, INodeExecutionData[]> = {};
	for (const [nodeName, taskData] of Object.entries(run.data.resultData.runData)) {
		const [main, errorOutput] = taskData[0]?.data?.main ?? [];
		if (main) outputs[nodeName] = main;
		if (errorOutput) errorOutputs[nodeName] = errorOutput;
	}
	return { outputs, errorOutputs, error: run.data.resultData.error, run };
}
