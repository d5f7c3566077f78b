import type { INodeProperties } from 'n8n-workflow';

/** What the editor says of each WhatsApp message type, in the words of the operation that shows it. */
export interface MessageTypeWords {
	session: string;
	template: string;
	field: string;
}

/** WhatsApp's Message Type (`messageType`): a template at any time, or a session text inside the 24-hour window. */
export function messageTypeField(
	show: NonNullable<INodeProperties['displayOptions']>['show'],
	words: MessageTypeWords,
): INodeProperties {
	return {
		displayName: 'Message Type',
		name: 'messageType',
		type: 'options',
		default: 'template',
		options: [
			{ name: 'Session', value: 'session', description: words.session },
			{ name: 'Template', value: 'template', description: words.template },
		],
		description: words.field,
		displayOptions: { show },
	};
}
