import { NodeHelpers } from 'n8n-workflow';
import type { IExecuteFunctions, INodeType, INodeTypes, IVersionedNodeType } from 'n8n-workflow';

import { Messaging } from '../../nodes/Messaging/Messaging.node';

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

const registered: Record<string, INodeType> = {
	'n8n-nodes-messaging.messaging': new Messaging(),
	'n8n-nodes-base.noOp': new PassThrough(),
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
