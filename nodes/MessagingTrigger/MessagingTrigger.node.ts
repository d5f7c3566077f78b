import {
	NodeConnectionTypes,
	type ICredentialsDecrypted,
	type ICredentialTestFunctions,
	type IExecuteFunctions,
	type IHookFunctions,
	type INodeCredentialTestResult,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { testSigningSecret } from './credentialTest';
import { nodeProcessedValues } from '../shared/processedValues';
import { itemsOnceAnswered } from './executionGate';
import { triggerProperties } from './description';
import { receiveDeliveryEvents } from './receiveDeliveryEvents';
import { forgetWebhookUrl, isWebhookUrlAnnounced, announceWebhookUrl } from './webhookRegistration';

export class MessagingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messaging Trigger',
		name: 'messagingTrigger',
		icon: { light: 'file:messagingTrigger.svg', dark: 'file:messagingTrigger.dark.svg' },
		group: ['trigger'],
		version: [1, 1.1, 2],
		defaultVersion: 2,
		subtitle:
			'={{ [($parameter["events"] || []).includes("message.inbound") ? "inbound messages" : "", ($parameter["events"] || []).includes("message.status") ? (($parameter["statuses"] || []).length ? $parameter["statuses"].join(", ") : "all statuses") : ""].filter(Boolean).join(" + ") }}',
		description:
			'Starts the workflow when a WhatsApp user writes to you, or when a message you sent changes status',
		defaults: { name: 'Messaging Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'messagingWebhookApi',
				required: true,
				testedBy: 'messagingWebhookSigningSecretTest',
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// Without it n8n answers the literal text "firstEntryJson"; empty, it answers the node's summary.
				responseData: '',
				path: 'messaging-events',
			},
		],
		properties: triggerProperties,
	};

	methods = {
		credentialTest: {
			async messagingWebhookSigningSecretTest(
				this: ICredentialTestFunctions,
				credential: ICredentialsDecrypted,
			): Promise<INodeCredentialTestResult> {
				return await testSigningSecret(credential);
			},
		},
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return isWebhookUrlAnnounced(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				announceWebhookUrl(this);
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				forgetWebhookUrl(this);
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receiveDeliveryEvents.call(this);
	}

	/** n8n runs this as the execution's first step, with the events webhook() handed it. */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		// Off, nothing held or claimed these events, and a repeat is meant to run again.
		if (!(this.getNodeParameter('options.dropDuplicateEvents', 0, true) as boolean)) return [items];
		return [await itemsOnceAnswered(this, items, nodeProcessedValues(this))];
	}
}
