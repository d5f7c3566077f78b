import type { INodeProperties } from 'n8n-workflow';

/**
 * What an AI Agent is told about the node used as its tool. n8n adds its own "Set Automatically" description
 * only to a node without a `toolDescription` parameter, and that one names the action and nothing else; a
 * model needs to know what each value must hold, what the answer means and how an error reads, so the node
 * brings its own, one per kind of message, shown only on the tool (`@tool`) and editable there.
 */

const RECIPIENT =
	'The recipient is a phone number in E.164 format: "+", country code, number, with no spaces, e.g. +919812345678.';
const ACKNOWLEDGEMENT =
	'Returns the provider\'s acknowledgement [{"message_id", "status", "channel"}]: status "queued" means the provider accepted the message for delivery (not yet delivered); message_id identifies it.';
const ON_ERROR =
	'If a value is wrong it returns [{"error"}] saying what is wrong and how to fix it: correct that value and call again. Every successful call sends one message, so call once per message.';

const SMS_SEND = [
	'Sends one SMS through the Messaging API.',
	'Its text is a DLT template registered in advance (the Indian registry of commercial SMS): only the template variables change, each a short plain value such as a name, a date or an order number.',
	RECIPIENT,
	ACKNOWLEDGEMENT,
	ON_ERROR,
].join(' ');

const WHATSAPP_TEMPLATE = [
	'Sends one WhatsApp template message through the Messaging API: a message approved in advance, the only kind that may start a conversation or write more than 24 hours after the customer last wrote.',
	'The template name is the approved name, e.g. order_update; the variables are the values of its numbered placeholders ({{1}}, {{2}}, …) in the header, body and buttons, as plain text or numbers, exactly as many as the template has.',
	RECIPIENT,
	ACKNOWLEDGEMENT,
	ON_ERROR,
].join(' ');

const WHATSAPP_SESSION = [
	'Sends one free-text WhatsApp message (a session message) through the Messaging API.',
	'Allowed only within 24 hours of the last message the customer sent; after that it returns an error and a template message must be sent instead.',
	'The text is plain, up to 4096 characters.',
	RECIPIENT,
	ACKNOWLEDGEMENT,
	ON_ERROR,
].join(' ');

function toolDescription(
	text: string,
	show: NonNullable<INodeProperties['displayOptions']>['show'],
): INodeProperties {
	return {
		displayName: 'Tool Description',
		name: 'toolDescription',
		type: 'string',
		default: text,
		typeOptions: { rows: 6 },
		description:
			'What the AI Agent is told about this tool: what it does, what each value must hold and what it returns',
		displayOptions: { show: { ...show, '@tool': [true] } },
	};
}

export const toolDescriptionFields: INodeProperties[] = [
	toolDescription(SMS_SEND, { resource: ['sms'], operation: ['send'] }),
	toolDescription(WHATSAPP_TEMPLATE, {
		resource: ['whatsapp'],
		operation: ['send'],
		messageType: ['template'],
	}),
	toolDescription(WHATSAPP_SESSION, {
		resource: ['whatsapp'],
		operation: ['send'],
		messageType: ['session'],
	}),
];
