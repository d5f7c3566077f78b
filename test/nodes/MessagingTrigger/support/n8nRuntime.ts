import 'reflect-metadata';
import { createRequire } from 'node:module';

import type { Logger } from '@n8n/backend-common';
import type { Container as DiContainer } from '@n8n/di';
import {
	NodeHelpers,
	Workflow,
	type IDataObject,
	type INode,
	type INodeParameters,
} from 'n8n-workflow';

import { messagingTriggerNode, TRIGGER_WEBHOOK_ID } from '../../../helpers/nodeFixtures';
import { messagingTriggerType, testNodeTypes } from '../../../helpers/nodeTypes';

export interface LogEntry {
	level: 'debug' | 'info' | 'warn' | 'error';
	message: string;
	meta?: unknown;
}

/** Every log line n8n-core's contexts hand to the logger, for the test to read. */
export const logs: LogEntry[] = [];

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

export const WEBHOOK_ID = TRIGGER_WEBHOOK_ID;

/** The trigger the shared registry holds, so the webhook a test calls is the one the workflow runs. */
export const triggerType = messagingTriggerType;

/** The version a trigger added in the editor today gets. */
export const CURRENT_TRIGGER_VERSION = 2;

/**
 * A trigger node as n8n loads it: parameters completed with the defaults of its version. Version 1 by default, as
 * workflows saved before inbound messages hold it.
 */
export function triggerNode(parameters: INodeParameters = {}, typeVersion = 1): INode {
	const node = messagingTriggerNode({}, { typeVersion });
	node.parameters =
		NodeHelpers.getNodeParameters(
			triggerType.description.properties,
			parameters,
			true,
			false,
			node,
			triggerType.description,
		) ?? {};
	return node;
}

/** A workflow over `staticData` itself, as n8n builds each one over the object it loaded (not over a copy). */
export function workflowOver(node: INode, staticData: IDataObject, id: string): Workflow {
	return new Workflow({
		id,
		name: 'Delivery events',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes: testNodeTypes,
		staticData,
	});
}

export function triggerWorkflow(node: INode, staticData: IDataObject, id = 'workflow-1'): Workflow {
	return workflowOver(node, JSON.parse(JSON.stringify(staticData)) as IDataObject, id);
}

/** The static data as n8n would save it: a plain copy without the change marker. */
export function savedStaticData(workflow: Workflow): IDataObject {
	const copy = JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject;
	delete copy.__dataChanged;
	return copy;
}
