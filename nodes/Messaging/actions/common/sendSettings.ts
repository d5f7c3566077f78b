import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { SendSettings } from '../../transport/messagingRequest';

export interface BatchSettings {
	maxConcurrency: number;
	maxPerSecond: number;
	maxTries429: number;
}

/** Reads one option by path, so an option's expression (e.g. the idempotency key) is evaluated only when needed. */
export function readOption(context: IExecuteFunctions, name: string, itemIndex: number): unknown {
	return context.getNodeParameter(`options.${name}`, itemIndex, '');
}

function wholeNumberOption(
	context: IExecuteFunctions,
	value: unknown,
	fallback: number,
	minimum: number,
	label: string,
	itemIndex: number,
	integer = true,
): number {
	if (value === undefined || value === null || value === '') return fallback;
	const number = Number(value);
	if (!Number.isFinite(number) || number < minimum) {
		throw new NodeOperationError(
			context.getNode(),
			`Item ${itemIndex}: 'Options > ${label}' is ${String(value)}, but it must be a number of at least ${minimum}`,
			{
				itemIndex,
				description: `Set ${label} to a whole number of at least ${minimum}, or remove the option to use the default (${fallback}).`,
			},
		);
	}
	return integer ? Math.floor(number) : number;
}

export function readSendSettings(context: IExecuteFunctions, itemIndex: number): SendSettings {
	const key = readOption(context, 'idempotencyKey', itemIndex);
	if (key !== undefined && key !== null && typeof key !== 'string' && typeof key !== 'number') {
		throw new NodeOperationError(context.getNode(), `Item ${itemIndex}: 'Options > Idempotency Key' must be text`, {
			itemIndex,
			description: 'Build the key from text or numbers, e.g. {{ $execution.id }}-{{ $itemIndex }}.',
		});
	}
	const idempotencyKey = key === undefined || key === null ? '' : String(key).trim();
	if (idempotencyKey.length > 255 || /[^\x20-\x7e]/.test(idempotencyKey)) {
		throw new NodeOperationError(
			context.getNode(),
			`Item ${itemIndex}: 'Options > Idempotency Key' must be at most 255 printable ASCII characters`,
			{
				itemIndex,
				description:
					'HTTP headers carry plain ASCII; build the key from ids, e.g. {{ $execution.id }}-{{ $itemIndex }}.',
			},
		);
	}
	return {
		bodyEncoding: readOption(context, 'bodyEncoding', itemIndex) === 'json' ? 'json' : 'form',
		timeoutMs: wholeNumberOption(context, readOption(context, 'timeout', itemIndex), 30000, 1, 'Timeout', itemIndex),
		...(idempotencyKey ? { idempotencyKey } : {}),
	};
}

/** Batch-wide knobs are read from the first item: one pool and one limiter serve the whole run. */
export function readBatchSettings(context: IExecuteFunctions): BatchSettings {
	return {
		maxConcurrency: wholeNumberOption(
			context,
			readOption(context, 'maxConcurrency', 0),
			5,
			1,
			'Max Concurrent Requests',
			0,
		),
		maxPerSecond: wholeNumberOption(
			context,
			readOption(context, 'maxPerSecond', 0),
			0,
			0,
			'Max Messages per Second',
			0,
			false,
		),
		maxTries429: wholeNumberOption(context, readOption(context, 'maxTries429', 0), 3, 1, 'Max Tries on 429', 0),
	};
}
