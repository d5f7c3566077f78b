import type { INodeProperties } from 'n8n-workflow';

/** The To field of every send operation: the same format and clean-up, whatever the channel. */
export function recipientField(
	numberKind: string,
	show: NonNullable<INodeProperties['displayOptions']>['show'],
): INodeProperties {
	return {
		displayName: 'To',
		name: 'to',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. +919812345678',
		description: `Recipient ${numberKind} number in international E.164 format: "+", country code, number. Spaces, dashes, dots, parentheses and a leading 00 are cleaned up for you.`,
		displayOptions: { show },
	};
}
