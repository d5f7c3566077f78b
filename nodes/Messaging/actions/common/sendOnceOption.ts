import type { INodeProperties } from 'n8n-workflow';

/**
 * Send once is on by default from node version 1.1. A node saved at 1 keeps sending every time unless the option is
 * set: a workflow that meant to repeat a message (an hourly reminder from one sheet) must not fall silent on update.
 */
export const SEND_ONCE_BY_DEFAULT_SINCE = 1.1;
export const SEND_ONCE_DEFAULT_HOURS = 24;

export function unsetSendOnceHours(typeVersion: number): number {
	return typeVersion >= SEND_ONCE_BY_DEFAULT_SINCE ? SEND_ONCE_DEFAULT_HOURS : 0;
}

export const sendOnceOption: INodeProperties = {
	displayName: 'Send Once Within (Hours)',
	name: 'sendOnceHours',
	type: 'number',
	default: SEND_ONCE_DEFAULT_HOURS,
	typeOptions: { minValue: 0, maxValue: 720, numberPrecision: 2 },
	description:
		'A message this node already had acknowledged is not sent again when the workflow runs again or is retried within this time (at least half of it): it comes out with skipped: true. Without an Idempotency Key the same message means the same text to the same recipient for the same input item. 24 (the default) keeps a campaign run again within a day from sending twice; 0 sends every time, for a message meant to repeat sooner (a node added before version 1.1 has 0 unless set).',
};
