import type { INodeProperties } from 'n8n-workflow';
import { z } from 'zod/v3';

import type { SendSettings } from '../../transport/messagingRequest';
import { issueToNodeError } from '../../validation/issueToNodeError';
import {
	boundedNumber,
	idempotencyKey,
	numberBoundsOf,
	optionsFieldGuide,
} from '../../validation/sendOptionsSchema';
import type { ItemParameters } from './itemParameters';
import { unsetSendOnceHours } from './sendOnceOption';
import { sendOptions } from './sendOptions';

export interface BatchSettings {
	/** 0 = automatic: the adaptive limit finds the pace; otherwise its upper bound. */
	maxConcurrency: number;
	maxPerSecond: number;
	/** Tries per message, the first included, for 429s and network failures alike (saved as `maxTries429`). */
	maxTriesPerMessage: number;
	/** How long an acknowledged message counts as sent (Send Once Within); 0 = off. */
	sendOnceHours: number;
}

function boundedOption(name: string) {
	const option = sendOptions.find((candidate) => candidate.name === name) as INodeProperties;
	return boundedNumber(numberBoundsOf(option));
}

const perItemOptions = z.object({
	idempotencyKey,
	timeout: boundedOption('timeout'),
	bodyEncoding: z
		.unknown()
		.transform((value) => (value === 'json' ? ('json' as const) : ('form' as const))),
});

const batchOptions = z.object({
	maxConcurrency: boundedOption('maxConcurrency'),
	maxPerSecond: boundedOption('maxPerSecond'),
	maxTries429: boundedOption('maxTries429'),
	sendOnceHours: boundedOption('sendOnceHours'),
});

const optionsGuide = optionsFieldGuide(sendOptions);

function readOptions<Schema extends z.AnyZodObject>(
	parameters: ItemParameters,
	schema: Schema,
	itemIndex: number,
): z.infer<Schema> {
	const values = Object.fromEntries(
		Object.keys(schema.shape).map((name) => [name, parameters.readOption(name, itemIndex)]),
	);
	const parsed = schema.safeParse(values);
	if (!parsed.success)
		throw issueToNodeError(
			parameters.context.getNode(),
			parsed.error.issues,
			itemIndex,
			optionsGuide,
		);
	return parsed.data;
}

export function readSendSettings(parameters: ItemParameters, itemIndex: number): SendSettings {
	const {
		idempotencyKey: key,
		timeout,
		bodyEncoding,
	} = readOptions(parameters, perItemOptions, itemIndex);
	return { bodyEncoding, timeoutMs: timeout, ...(key ? { idempotencyKey: key } : {}) };
}

/** Batch-wide knobs are read from the first item: one pool and one limiter serve the whole run. */
export function readBatchSettings(parameters: ItemParameters): BatchSettings {
	const { maxTries429, sendOnceHours, ...others } = readOptions(parameters, batchOptions, 0);
	const unset = parameters.readOption('sendOnceHours', 0) === '';
	return {
		...others,
		maxTriesPerMessage: maxTries429,
		sendOnceHours: unset
			? unsetSendOnceHours(parameters.context.getNode().typeVersion)
			: sendOnceHours,
	};
}
