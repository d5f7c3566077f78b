import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { toolDescriptionFields } from './actions/common/toolDescriptions';
import { route } from './actions/router';
import * as sms from './actions/sms';
import * as whatsapp from './actions/whatsapp';
import { testMessagingApiCredential } from './methods/testMessagingApiCredential';
import { answerWebhook, sendAndWaitWebhooks } from './sendAndWait/answerWebhook';

export class Messaging implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messaging',
		name: 'messaging',
		icon: { light: 'file:messaging.svg', dark: 'file:messaging.dark.svg' },
		group: ['output'],
		// 1.1: Send Once Within is 24 hours unless set (nodes saved at 1 keep 0: see sendOnceOption).
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle:
			'={{ $parameter["resource"] === "whatsapp" ? "WhatsApp: " + ($parameter["operation"] === "sendAndWait" ? "Send and Wait" : "Send") + " " + $parameter["messageType"] : "SMS: Send" }}',
		description: 'Send DLT-compliant SMS and WhatsApp messages through the Messaging API',
		defaults: { name: 'Messaging' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'messagingApi', required: true, testedBy: 'testMessagingApiCredential' }],
		webhooks: sendAndWaitWebhooks,
		waitingNodeTooltip:
			'={{ $parameter["operation"] === "sendAndWait" ? "Execution will continue after the person answers" : "" }}',
		properties: [
			...toolDescriptionFields,
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'SMS', value: 'sms' },
					{ name: 'WhatsApp', value: 'whatsapp' },
				],
				default: 'sms',
			},
			...sms.description,
			...whatsapp.description,
		],
	};

	methods = {
		credentialTest: { testMessagingApiCredential },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await route.call(this);
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await answerWebhook.call(this);
	}
}
