import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { SendSettings } from '../../transport/messagingRequest';
import { itemParametersOf } from './itemParameters';

export interface BatchSettings {
	maxConcurrency: number;
	maxPerSecond: number;
	maxTries429: number;
}

interface NumberOptionSpec {
	name: string;
	label: string;
	fallback: number;
	minimum: number;
	maximum?: number;
	integer?: boolean;
}

const TIMEOUT: NumberOptionSpec = { name: 'timeout', label: 'Timeout', fallback: 30000, minimum: 1, maximum: 600000 };
const MAX_CONCURRENCY: NumberOptionSpec = {
	name: 'maxConcurrency',
	label: 'Max Concurrent Requests',
	fallback: 5,
	minimum: 1,
	maximum: 100,
};
const MAX_PER_SECOND: NumberOptionSpec = {
	name: 'maxPerSecond',
	label: 'Max Messages per Second',
	fallback: 0,
	minimum: 0,
	integer: false,
};
const MAX_TRIES_429: NumberOptionSpec = {
	name: 'maxTries429',
	label: 'Max Tries on 429',
	fallback: 3,
	minimum: 1,
	maximum: 10,
};

/** Reads one option by path, so an option's expression (e.g. the idempotency key) is evaluated only when needed. */
export function readOption(context: IExecuteFunctions, name: string, itemIndex: number): unknown {
	return itemParametersOf(context).read(`options.${name}`, itemIndex, '');
}

function readNumberOption(context: IExecuteFunctions, spec: NumberOptionSpec, itemIndex: number): number {
	const value = readOption(context, spec.name, itemIndex);
	if (value === undefined || value === null || value === '') return spec.fallback;
	const number = Number(value);
	const inRange =
		Number.isFinite(number) && number >= spec.minimum && (spec.maximum === undefined || number <= spec.maximum);
	if (!inRange) {
		const range = spec.maximum === undefined ? `of at least ${spec.minimum}` : `from ${spec.minimum} to ${spec.maximum}`;
		throw new NodeOperationError(
			context.getNode(),
			`Item ${itemIndex}: 'Options > ${spec.label}' is ${String(value)}, but it must be a number ${range}`,
			{
				itemIndex,
				description: `Set ${spec.label} to a number ${range}, or remove the option to use the default (${spec.fallback}).`,
			},
		);
	}
	return spec.integer === false ? number : Math.floor(number);
}

function readIdempotencyKey(context: IExecuteFunctions, itemIndex: number): string {
	const key = readOption(context, 'idempotencyKey', itemIndex);
	const text = typeof key === 'string' || typeof key === 'number' ? String(key).trim() : undefined;
	if (key !== undefined && key !== null && (text === undefined || text.length > 255 || /[^\x20-\x7e]/.test(text))) {
		throw new NodeOperationError(
			context.getNode(),
			`Item ${itemIndex}: 'Options > Idempotency Key' must be text of at most 255 printable ASCII characters`,
			{
				itemIndex,
				description: 'It travels as an HTTP header, so build it from plain ids, e.g. the order number and the channel.',
			},
		);
	}
	return text ?? '';
}

export function readSendSettings(context: IExecuteFunctions, itemIndex: number): SendSettings {
	const idempotencyKey = readIdempotencyKey(context, itemIndex);
	return {
		bodyEncoding: readOption(context, 'bodyEncoding', itemIndex) === 'json' ? 'json' : 'form',
		timeoutMs: readNumberOption(context, TIMEOUT, itemIndex),
		...(idempotencyKey ? { idempotencyKey } : {}),
	};
}

/** Batch-wide knobs are read from the first item: one pool and one limiter serve the whole run. */
export function readBatchSettings(context: IExecuteFunctions): BatchSettings {
	return {
		maxConcurrency: readNumberOption(context, MAX_CONCURRENCY, 0),
		maxPerSecond: readNumberOption(context, MAX_PER_SECOND, 0),
		maxTries429: readNumberOption(context, MAX_TRIES_429, 0),
	};
}
