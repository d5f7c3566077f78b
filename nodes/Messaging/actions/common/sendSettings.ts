import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { BodyEncoding, SendSettings } from '../../transport/messagingRequest';

export interface BatchSettings {
	maxConcurrency: number;
	maxPerSecond: number;
	maxTries429: number;
}

interface RawOptions {
	bodyEncoding?: BodyEncoding;
	timeout?: number;
	idempotencyKey?: unknown;
	maxConcurrency?: number;
	maxPerSecond?: number;
	maxTries429?: number;
}

function readOptions(context: IExecuteFunctions, itemIndex: number): RawOptions {
	return context.getNodeParameter('options', itemIndex, {}) as RawOptions;
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
		throw new NodeOperationError(context.getNode(), `Item ${itemIndex}: 'Options > ${label}' is ${String(value)}, but it must be a number of at least ${minimum}`, {
			itemIndex,
			description: `Set ${label} to a whole number of at least ${minimum}, or remove the option to use the default (${fallback}).`,
		});
	}
	return integer ? Math.floor(number) : number;
}

export function readSendSettings(context: IExecuteFunctions, itemIndex: number): SendSettings {
	const options = readOptions(context, itemIndex);
	const key = options.idempotencyKey;
	if (key !== undefined && key !== null && typeof key !== 'string' && typeof key !== 'number') {
		throw new NodeOperationError(context.getNode(), `Item ${itemIndex}: 'Options > Idempotency Key' must be text`, {
			itemIndex,
			description: 'Build the key from text or numbers, e.g. {{ $execution.id }}-{{ $itemIndex }}.',
		});
	}
	const idempotencyKey = key === undefined || key === null ? '' : String(key).trim();
	if (idempotencyKey.length > 255 || /[^\x20-\x7e]/.test(idempotencyKey)) {
		throw new NodeOperationError(context.getNode(), `Item ${itemIndex}: 'Options > Idempotency Key' must be at most 255 printable ASCII characters`, {
			itemIndex,
			description: 'HTTP headers carry plain ASCII; build the key from ids, e.g. {{ $execution.id }}-{{ $itemIndex }}.',
		});
	}
	return {
		bodyEncoding: options.bodyEncoding === 'json' ? 'json' : 'form',
		timeoutMs: wholeNumberOption(context, options.timeout, 30000, 1, 'Timeout', itemIndex),
		...(idempotencyKey ? { idempotencyKey } : {}),
	};
}

/** Batch-wide knobs are read from the first item: one pool and one limiter serve the whole run. */
export function readBatchSettings(context: IExecuteFunctions): BatchSettings {
	const options = readOptions(context, 0);
	return {
		maxConcurrency: wholeNumberOption(context, options.maxConcurrency, 5, 1, 'Max Concurrent Requests', 0),
		maxPerSecond: wholeNumberOption(context, options.maxPerSecond, 0, 0, 'Max Messages per Second', 0, false),
		maxTries429: wholeNumberOption(context, options.maxTries429, 3, 1, 'Max Tries on 429', 0),
	};
}
