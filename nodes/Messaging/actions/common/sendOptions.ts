import type { INodeProperties } from 'n8n-workflow';

import type { MessagingResource } from '../types';
import { sendOnceOption } from './sendOnceOption';

export const callbackUrlOption: INodeProperties = {
	displayName: 'Callback URL',
	name: 'callbackUrl',
	type: 'string',
	default: '',
	placeholder: 'e.g. https://n8n.example.com/webhook/messaging-events',
	description:
		"Where delivery events for this message are posted instead of the account's webhook URL. Paste the Production URL of a Messaging Trigger node here to react to delivered, failed and undelivered events.",
};

/** The options both resources share; their number bounds are also what the node checks (sendSettings). */
export const sendOptions: INodeProperties[] = [
	{
		displayName: 'Body Encoding',
		name: 'bodyEncoding',
		type: 'options',
		default: 'form',
		options: [
			{
				name: 'Form (URL-Encoded)',
				value: 'form',
				description: 'Send named fields as application/x-www-form-urlencoded',
			},
			{ name: 'JSON', value: 'json', description: 'Send the same fields as a JSON object' },
		],
		description: 'How the request body is encoded. Keep Form unless your provider asks for JSON.',
	},
	{
		displayName: 'Default Country Code',
		name: 'defaultCountryCode',
		type: 'string',
		default: '',
		placeholder: 'e.g. 91',
		description:
			'Country calling code (digits only) used to complete numbers written without one, e.g. 09812345678 becomes +919812345678 with 91. Leave empty to require international numbers.',
	},
	{
		displayName: 'Idempotency Key',
		name: 'idempotencyKey',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.order_number }}-whatsapp',
		description:
			"Sent as the Idempotency-Key header instead of the key the node derives from the input item and the message. Set it when the input items carry fields that change on every run (a timestamp): build it from data that stays the same when the same message is sent again, e.g. the order number and the channel, never the execution's ID or $itemIndex, which change on a re-run. With a key of your own the node also retries after server errors and timeouts.",
	},
	{
		displayName: 'Max Concurrent Requests',
		name: 'maxConcurrency',
		type: 'number',
		default: 0,
		typeOptions: { minValue: 0, maxValue: 100 },
		description:
			"The most messages sent at the same time. 0 finds the provider's pace: more at a time while its answers stay fast, fewer when they slow down, on 429 Too Many Requests and when its rate limit runs low. A number caps that search. Output order always matches the input.",
	},
	{
		displayName: 'Max Messages per Second',
		name: 'maxPerSecond',
		type: 'number',
		default: 0,
		typeOptions: { minValue: 0, numberPrecision: 2 },
		description: "Spreads sends evenly to stay under your provider's rate limit. 0 means no limit.",
	},
	{
		// The name stays maxTries429, as saved workflows have it, though the limit covers every retry.
		displayName: 'Max Tries per Message',
		name: 'maxTries429',
		type: 'number',
		default: 3,
		typeOptions: { minValue: 1, maxValue: 10 },
		description:
			'How many times in all a message is tried when sending it fails in a way that is safe to repeat: a 429 Too Many Requests (waiting as its Retry-After header says, up to an hour), a refused connection or unknown host (nothing was sent), and, only with an Idempotency Key, a server error (5xx) or a timeout. Other failures are never retried. After the last try the item fails.',
	},
	sendOnceOption,
	{
		displayName: 'Timeout',
		name: 'timeout',
		type: 'number',
		default: 30000,
		typeOptions: { minValue: 1000, maxValue: 600000 },
		description: 'How long to wait for the provider to answer one request, in milliseconds',
	},
];

/** An operation's Options collection, its options in alphabetical order. */
export function optionsCollection(
	description: string,
	show: NonNullable<INodeProperties['displayOptions']>['show'],
	options: INodeProperties[],
): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		description,
		displayOptions: { show },
		options: [...options].sort((a, b) => a.displayName.localeCompare(b.displayName)),
	};
}

export function sendOptionsCollection(
	resource: MessagingResource,
	extraOptions: INodeProperties[] = [],
): INodeProperties {
	return optionsCollection(
		'Country code completion, body encoding, timeout, throughput and idempotency settings',
		{ resource: [resource], operation: ['send'] },
		[...sendOptions, ...extraOptions],
	);
}
