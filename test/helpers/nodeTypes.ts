import { NodeHelpers } from 'n8n-workflow';
import type { IExecuteFunctions, INodeType, INodeTypes, IVersionedNodeType } from 'n8n-workflow';

import { Messaging } from '../../nodes/Messaging/Messaging.node';
import { MessagingTrigger } from '../../nodes/MessagingTrigger/MessagingTrigger.node';
import { MESSAGING_NODE_TYPE, MESSAGING_TRIGGER_NODE_TYPE, NO_OP_NODE_TYPE } from './nodeFixtures';

/** Same contract as n8n's NoOp node: passes its input through. Used as the workflow's entry point. */
class PassThrough implements INodeType {
	description = {
		displayName: 'No Operation, do nothing',
		name: 'noOp',
		group: ['organization'],
		version: 1,
		description: 'No operation',
		defaults: { name: 'No Operation, do nothing' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions) {
		return [this.getInputData()];
	}
}

/** The registry's Messaging node, the instance a workflow run through the harness executes. */
export const messagingType = new Messaging();

/** The registry's Messaging Trigger node, the instance a trigger workflow's webhook calls. */
export const messagingTriggerType = new MessagingTrigger();

const registered: Record<string, INodeType> = {
	[MESSAGING_NODE_TYPE]: messagingType,
	[MESSAGING_TRIGGER_NODE_TYPE]: messagingTriggerType,
	[NO_OP_NODE_TYPE]: new PassThrough(),
};

/** The harness's node types, plus any a caller brings (the benchmark's yardstick node), by full type name. */
export function testNodeTypesWith(extra: Record<string, INodeType> = {}): INodeTypes {
	const types = { ...registered, ...extra };
	return {
		getByName(nodeType: string): INodeType | IVersionedNodeType {
			const type = types[nodeType];
			if (!type) throw new Error(`Unknown node type "${nodeType}" in the test harness`);
			return type;
		},
		getByNameAndVersion(nodeType: string, version?: number): INodeType {
			return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
		},
		getKnownTypes() {
			return {};
		},
	};
}

export const testNodeTypes: INodeTypes = testNodeTypesWith();
