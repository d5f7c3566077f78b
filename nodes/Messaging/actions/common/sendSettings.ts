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

/** Settings every item of a run shares, by the run's parameters: kept only once they are known to be fixed. */
const sharedSettings = new WeakMap<ItemParameters, SendSettings>();

/**
 * One item's settings. Options without an expression give every item the same settings, so they are checked
 * once and every item holds the same object: a campaign of 100,000 items neither parses them 100,000 times nor
 * keeps 100,000 copies until it is sent. Nothing writes to a send's settings (send once replaces them).
 */
export function readSendSettings(parameters: ItemParameters, itemIndex: number): SendSettings {
	const shared = sharedSettings.get(parameters);
	if (shared) return shared;
	const {
		idempotencyKey: key,
		timeout,
		bodyEncoding,
	} = readOptions(parameters, perItemOptions, itemIndex);
	const settings = { bodyEncoding, timeoutMs: timeout, ...(key ? { idempotencyKey: key } : {}) };
	const fixed = Object.keys(perItemOptions.shape).every((name) =>
		parameters.isFixed(`options.${name}`),
	);
	if (fixed) sharedSettings.set(parameters, settings);
	return settings;
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
