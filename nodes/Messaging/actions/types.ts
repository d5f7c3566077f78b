import type { IExecuteFunctions } from 'n8n-workflow';

import type { MessagingRequest } from '../transport/messagingRequest';

export type PrepareRequest = (this: IExecuteFunctions, itemIndex: number) => MessagingRequest;

export type MessagingResource = 'sms' | 'whatsapp';

export type OperationMap = {
	[resource in MessagingResource]: Record<string, PrepareRequest>;
};
