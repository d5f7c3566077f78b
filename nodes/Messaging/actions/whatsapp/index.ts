import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../common/operationSelector';
import type { OperationModule } from '../types';
import * as send from './send.operation';
import * as sendAndWait from './sendAndWait.operation';

export { send, sendAndWait };

/** By the Operation parameter's value: the router finds each operation here. */
export const operations: Record<string, OperationModule> = { send, sendAndWait };

export const description: INodeProperties[] = [
	operationSelector('whatsapp', [
		{
			name: 'Send',
			value: 'send',
			action: 'Send a template or session message',
			description:
				'Send a WhatsApp template message, or a session message within the 24-hour window',
		},
		{
			name: 'Send and Wait for Response',
			value: 'sendAndWait',
			action: 'Send a message and wait for the response',
			description:
				'Ask a person to approve, decline or answer through a link, and continue with the answer',
		},
	]),
	...send.description,
	...sendAndWait.description,
];
