import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../common/operationSelector';
import type { OperationModule } from '../types';
import * as send from './send.operation';

export { send };

/** By the Operation parameter's value: the router finds each operation here. */
export const operations: Record<string, OperationModule> = { send };

export const description: INodeProperties[] = [
	operationSelector('whatsapp', [
		{
			name: 'Send',
			value: 'send',
			action: 'Send a template or session message',
			description: 'Send a WhatsApp template message, or a session message within the 24-hour window',
		},
	]),
	...send.description,
];
