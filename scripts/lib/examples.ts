import fs from 'node:fs';
import path from 'node:path';

import { EXAMPLES_DIR } from '../n8n/paths';

export const MESSAGING_NODE_TYPE = 'n8n-nodes-messaging.messaging';
export const MESSAGING_TRIGGER_NODE_TYPE = 'n8n-nodes-messaging.messagingTrigger';

/** The credential the examples point at; `npm start`, the demo and the e2e create it under this id. */
export const EXAMPLE_CREDENTIAL = { id: 'msgSandboxCred01', name: 'Messaging Sandbox' };

/**
 * The OpenAI credential the AI examples' chat model uses; `npm start`, the demo and the e2e point its Base URL at
 * the local model double. Point it at https://api.openai.com/v1 with a real key to use a real model.
 */
export const MODEL_CREDENTIAL = { id: 'modelDoubleCred1', name: 'OpenAI (local model double)' };

/** The WhatsApp assistant: inbound messages answered by an AI Agent with a memory per sender. */
export const AI_ASSISTANT_EXAMPLE_ID = 'exWaAiAssist0001';

/** The example that answers inbound WhatsApp messages; the demo, `npm start` and the e2e point the account webhook at it. */
export const INBOUND_REPLY_EXAMPLE_ID = 'exWaInboundRep01';

/** The example whose batched status events become a count per status; the demo plays a campaign into it. */
export const DELIVERY_REPORT_EXAMPLE_ID = 'exWaDelivReport1';

/** The origin written into the examples' URLs: the editor `npm start` serves. Other instances swap in their own. */
export const EXAMPLE_N8N_ORIGIN = 'http://localhost:5678';

export interface WorkflowNode {
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	webhookId?: string;
}

export interface WorkflowJson {
	id: string;
	name: string;
	nodes: WorkflowNode[];
	connections: Record<string, unknown>;
	active?: boolean;
	[key: string]: unknown;
}

export interface Example {
	file: string;
	workflow: WorkflowJson;
	/** Messaging nodes in the order the workflow reaches them. */
	messagingNodes: WorkflowNode[];
}

export function loadExamples(): Example[] {
	return fs
		.readdirSync(EXAMPLES_DIR)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => {
			const workflow = JSON.parse(
				fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8'),
			) as WorkflowJson;
			return {
				file,
				workflow,
				messagingNodes: workflow.nodes.filter((node) => node.type === MESSAGING_NODE_TYPE),
			};
		});
}

/**
 * An example with a Send and Wait node pauses until someone answers, so `n8n execute` cannot run it to the end:
 * it is started through its production webhook instead, and resumed by opening the link it sent.
 */
export function waitsForAnswer(example: Example): boolean {
	return example.messagingNodes.some((node) => node.parameters.operation === 'sendAndWait');
}

/** The example as it must be imported into an n8n served at `origin`: its own webhook URLs point there. */
export function forN8nAt(workflow: WorkflowJson, origin: string): WorkflowJson {
	if (origin === EXAMPLE_N8N_ORIGIN) return workflow;
	return JSON.parse(
		JSON.stringify(workflow).split(EXAMPLE_N8N_ORIGIN).join(origin),
	) as WorkflowJson;
}

/** The production path of the example's Messaging Trigger, e.g. `/webhook/<webhookId>/messaging-events`. */
export function triggerPathOf(example: Example): string {
	const trigger = example.workflow.nodes.find((node) => node.type === MESSAGING_TRIGGER_NODE_TYPE);
	if (!trigger?.webhookId)
		throw new Error(`${example.file} has no Messaging Trigger with a webhookId`);
	return `/webhook/${trigger.webhookId}/messaging-events`;
}
