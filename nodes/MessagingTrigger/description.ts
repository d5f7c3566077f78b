import type { INodeProperties } from 'n8n-workflow';

import {
	defaultEventsFor,
	INBOUND_BY_DEFAULT_SINCE,
	INBOUND_MESSAGE,
	STATUS_UPDATE,
	type EventKind,
} from './events';
import { DEFAULT_TIMESTAMP_TOLERANCE_SECONDS } from './readVerifiedEvents';
import {
	BATCHING_SINCE,
	DEFAULT_BATCH_MAX_EVENTS,
	DEFAULT_BATCH_WAIT_MS,
	MAX_BATCH_EVENTS,
	MAX_BATCH_WAIT_MS,
} from './batchSettings';

function eventsSelector(
	typeVersions: INodeProperties['displayOptions'],
	defaultEvents: EventKind[],
): INodeProperties {
	return {
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		options: [
			{
				name: 'Inbound Messages',
				value: INBOUND_MESSAGE,
				description: 'A WhatsApp user wrote to your number or pressed a quick-reply button',
			},
			{
				name: 'Status Updates',
				value: STATUS_UPDATE,
				description: 'A message you sent was queued, sent, delivered, read, failed or undelivered',
			},
		],
		default: [...defaultEvents],
		displayOptions: typeVersions,
		description:
			'Which events start the workflow. Unselected ones are acknowledged with 200 and start nothing.',
	};
}

const statusUpdatesOnly = { show: { events: [STATUS_UPDATE] } };
const batchingVersions = { '@version': [{ _cnd: { gte: BATCHING_SINCE } }] };

const batchingFields: INodeProperties[] = [
	{
		displayName: 'Batch Wait (Ms)',
		name: 'batchWaitMs',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: MAX_BATCH_WAIT_MS },
		default: DEFAULT_BATCH_WAIT_MS,
		displayOptions: { show: batchingVersions },
		description:
			'Events that arrive within this time of the first go to one execution, one item per event, so a campaign costs a few executions instead of one per event. Each delivery is answered once its execution has started. 0 starts one execution per delivery.',
	},
	{
		displayName: 'Max Events per Execution',
		name: 'batchMaxEvents',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_BATCH_EVENTS },
		default: DEFAULT_BATCH_MAX_EVENTS,
		displayOptions: { show: batchingVersions, hide: { batchWaitMs: [0] } },
		description:
			'An execution starts as soon as it holds this many events, without waiting for the rest of Batch Wait',
	},
];

export const triggerProperties: INodeProperties[] = [
	{
		displayName:
			"Paste this node's Production URL into the Callback URL option of the Messaging node (SMS) or into the account webhook URL (inbound messages always go there). Events that the settings below leave out, and duplicates, are acknowledged with 200 so the sender does not retry them, but they start no execution.",
		name: 'setupNotice',
		type: 'notice',
		default: '',
	},
	eventsSelector({ show: { '@version': [1] } }, defaultEventsFor(1)),
	eventsSelector(
		{ show: { '@version': [{ _cnd: { gte: INBOUND_BY_DEFAULT_SINCE } }] } },
		defaultEventsFor(INBOUND_BY_DEFAULT_SINCE),
	),
	{
		displayName: 'Channels',
		name: 'channels',
		type: 'multiOptions',
		options: [
			{ name: 'SMS', value: 'sms' },
			{ name: 'WhatsApp', value: 'whatsapp' },
		],
		default: [],
		displayOptions: statusUpdatesOnly,
		description:
			'Only status updates on these channels start the workflow. Leave empty for all channels.',
	},
	{
		displayName: 'Statuses',
		name: 'statuses',
		type: 'multiOptions',
		options: [
			{ name: 'Delivered', value: 'delivered' },
			{ name: 'Failed', value: 'failed' },
			{ name: 'Queued', value: 'queued' },
			{ name: 'Read', value: 'read' },
			{ name: 'Sent', value: 'sent' },
			{ name: 'Undelivered', value: 'undelivered' },
		],
		default: [],
		displayOptions: statusUpdatesOnly,
		description:
			'Only status updates with these statuses start the workflow. Leave empty for all statuses, including ones the provider adds later.',
	},
	...batchingFields,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Drop Duplicate Events',
				name: 'dropDuplicateEvents',
				type: 'boolean',
				default: true,
				description:
					'Whether to ignore an event whose ID was already accepted, as the sender repeats the same event ID when it retries. Remembers the last 10,000 IDs in each n8n process and saves the last 1,000 with the workflow.',
			},
			{
				displayName: 'Timestamp Tolerance (Seconds)',
				name: 'timestampToleranceSeconds',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: DEFAULT_TIMESTAMP_TOLERANCE_SECONDS,
				description:
					"How far the signed timestamp may be from this server's clock, either way. Older deliveries are refused as replays.",
			},
		],
	},
];
