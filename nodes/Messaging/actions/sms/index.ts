import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../common/operationSelector';
import type { OperationModule } from '../types';
import * as send from './send.operation';

export { send };

/** By the Operation parameter's value: the router finds each operation here. */
export const operations: Record<string, OperationModule> = { send };

export const description: INodeProperties[] = [
	operationSelector('sms', [
		{
			name: 'Send',
			value: 'send',
			action: 'Send an SMS',
			description: 'Send a DLT-registered template SMS to one recipient',
		},
	]),
	...send.description,
];
