import type { INodePropertyOptions, INodeProperties } from 'n8n-workflow';

import type { MessagingResource } from '../types';

/** A resource's Operation selector. */
export function operationSelector(
	resource: MessagingResource,
	options: INodePropertyOptions[],
	defaultOperation = 'send',
): INodeProperties {
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options,
		default: defaultOperation,
	};
}
