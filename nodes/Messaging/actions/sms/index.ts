import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../types';
import * as send from './send.operation';

export { send };

/** By the Operation parameter's value: the router finds each operation here. */
export const operations: Record<string, OperationModule> = { send };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['sms'] } },
		options: [
			{
				name: 'Send',
				value: 'send',
				action: 'Send an SMS',
				description: 'Send a DLT-registered template SMS to one recipient',
			},
		],
		default: 'send',
	},
	...send.description,
];
