import { z } from 'zod/v3';
import type { INodeProperties } from 'n8n-workflow';

import { addFieldIssue } from './fieldSchemas';
import type { FieldGuide } from './issueToNodeError';

/** What the editor allows for a number option, read from its description so the check can never drift from it. */
export interface NumberBounds {
	label: string;
	fallback: number;
	minimum: number;
	maximum?: number;
	integer: boolean;
}

export function numberBoundsOf(option: INodeProperties): NumberBounds {
	const { minValue, maxValue, numberPrecision } = option.typeOptions ?? {};
	if (option.type !== 'number' || typeof minValue !== 'number') {
		throw new Error(`Option "${option.name}" is not a number option with a minValue`);
	}
	return {
		label: option.displayName,
		fallback: option.default as number,
		minimum: minValue,
		...(typeof maxValue === 'number' ? { maximum: maxValue } : {}),
		integer: !(typeof numberPrecision === 'number' && numberPrecision > 0),
	};
}

function rangeOf(bounds: NumberBounds): string {
	return bounds.maximum === undefined
		? `of at least ${bounds.minimum}`
		: `from ${bounds.minimum} to ${bounds.maximum}`;
}

/** An unset option takes its default; integer options drop a fraction, as the editor's number field does. */
export function boundedNumber(bounds: NumberBounds) {
	return z.unknown().transform((value, ctx): number => {
		if (value === undefined || value === null || value === '') return bounds.fallback;
		const number = Number(value);
		const inRange =
			Number.isFinite(number) &&
			number >= bounds.minimum &&
			(bounds.maximum === undefined || number <= bounds.maximum);
		if (!inRange) {
			const range = rangeOf(bounds);
			addFieldIssue(
				ctx,
				`is ${String(value)}, but it must be a number ${range}`,
				`Set ${bounds.label} to a number ${range}, or remove the option to use the default (${bounds.fallback}).`,
			);
			return z.NEVER;
		}
		return bounds.integer ? Math.floor(number) : number;
	});
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** It travels as an HTTP header, so only short printable ASCII text will do. */
export const idempotencyKey = z.unknown().transform((value, ctx): string => {
	if (value === undefined || value === null) return '';
	const text =
		typeof value === 'string' || typeof value === 'number' ? String(value).trim() : undefined;
	if (text === undefined || text.length > 255 || !PRINTABLE_ASCII.test(text)) {
		addFieldIssue(
			ctx,
			'must be text of at most 255 printable ASCII characters',
			'It travels as an HTTP header, so build it from plain ids, e.g. the order number and the channel.',
		);
		return z.NEVER;
	}
	return text;
});

/** Labels as the user finds the options in the editor: "Options > Timeout". */
export function optionsFieldGuide(options: INodeProperties[]): FieldGuide {
	return Object.fromEntries(
		options.map((option) => [
			option.name,
			{ label: `Options > ${option.displayName}`, fix: 'Correct the option or remove it.' },
		]),
	);
}
