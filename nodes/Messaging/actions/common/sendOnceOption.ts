import type { INodeProperties } from 'n8n-workflow';

export const sendOnceOption: INodeProperties = {
	displayName: 'Send Once Within (Hours)',
	name: 'sendOnceHours',
	type: 'number',
	default: 24,
	typeOptions: { minValue: 0, maxValue: 720, numberPrecision: 2 },
	description:
		'A message this node already had acknowledged is not sent again when the workflow runs again or is retried within this time (at least half of it): it comes out with skipped: true. Without an Idempotency Key the same message means the same text to the same recipient for the same input item. 0 sends every time, e.g. for a reminder repeated sooner than this.',
};
