import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { PreparedWait } from '../sendAndWait/waiting';
import type { MessagingRequest } from '../transport/messagingRequest';
import type { ItemParameters } from './common/itemParameters';

/** What one item becomes before anything is sent: its request, and for Send and Wait what the wait needs. */
export interface PreparedItem {
	request: MessagingRequest;
	wait?: PreparedWait;
}

/** Reads and checks one item's parameters; throws a NodeOperationError naming the field, the item and the fix. */
export type PrepareRequest = (parameters: ItemParameters, itemIndex: number) => PreparedItem;

/** What every `*.operation.ts` exports. */
export interface OperationModule {
	description: INodeProperties[];
	prepare: PrepareRequest;
	/** The operation asks one question per execution: more than one input item is refused before anything is sent. */
	singleItem?: boolean;
	/** The operation puts the execution to wait for a person: refused as a tool where n8n cannot wait for it. */
	waitsForAnswer?: boolean;
	/**
	 * Runs once every item was sent, on the items in input order with what each item's `prepare` worked out for
	 * its wait; without it those items are the output.
	 */
	afterSend?: (
		context: IExecuteFunctions,
		results: INodeExecutionData[],
		waits: Array<PreparedWait | undefined>,
	) => Promise<INodeExecutionData[][]>;
}

export type MessagingResource = 'sms' | 'whatsapp';
