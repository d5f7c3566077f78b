import type { ICredentialType, INodeProperties } from 'n8n-workflow';

export class MessagingWebhookApi implements ICredentialType {
	name = 'messagingWebhookApi';

	displayName = 'Messaging Webhook Signing Secret API';

	icon = {
		light: 'file:messagingWebhookApi.svg',
		dark: 'file:messagingWebhookApi.dark.svg',
	} as const;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-messaging#messaging-trigger';

	properties: INodeProperties[] = [
		{
			displayName: 'Signing Secret',
			name: 'signingSecret',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description:
				'The account signing secret of the Messaging API. The trigger uses it to check the X-Messaging-Signature header of every delivery.',
		},
	];
}
