import type { INodeProperties } from 'n8n-workflow';

export const sendOnceOption: INodeProperties = {
	displayName: 'Send Once Within (Hours)',
	name: 'sendOnceHours',
	type: 'number',
	default: 0,
	typeOptions: { minValue: 0, maxValue: 720, numberPrecision: 2 },
	description:
		'A message this node already had acknowledged is not sent again when the workflow runs again or is retried within this time (at least half of it): it comes out with skipped: true. Without an Idempotency Key the same message means the same text to the same recipient for the same input item. 0 (the default for now) sends every time; 24 keeps a campaign run again within a day from sending twice.',
};
