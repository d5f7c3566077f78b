import type { INodeProperties } from 'n8n-workflow';

import type { MessagingRequest } from '../transport/messagingRequest';
import type { ItemParameters } from './common/itemParameters';

/** Reads and checks one item's parameters; throws a NodeOperationError naming the field, the item and the fix. */
export type PrepareRequest = (parameters: ItemParameters, itemIndex: number) => MessagingRequest;

/** What every `*.operation.ts` exports. */
export interface OperationModule {
	description: INodeProperties[];
	prepare: PrepareRequest;
}

export type MessagingResource = 'sms' | 'whatsapp';
