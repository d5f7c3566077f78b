import { z } from 'zod/v3';

import { addFieldIssue, describeType } from './fieldSchemas';
import { normalisePhoneNumber } from './phone';

/** Longer text is not one phone number: refused before it is normalised. */
export const MAX_RECIPIENT_LENGTH = 40;

/** A number has lost its "+" or trunk 0, so completing it with a country code could text a stranger. */
export function normaliseRecipient(
	value: unknown,
	defaultCountryCode: string,
	ctx: z.RefinementCtx,
): string {
	if (typeof value === 'number') {
		addFieldIssue(
			ctx,
			`is a number (${value}), but phone numbers must be text`,
			`As a number it lost its "+" and leading zeros. Map it as text with its country code, e.g. {{ "+" + $json.phone }} for ${value}.`,
			['to'],
		);
		return '';
	}
	const text = value;
	if (typeof text !== 'string') {
		addFieldIssue(
			ctx,
			value === undefined || value === null
				? 'is empty'
				: `is ${describeType(value)}, but it must be a phone number`,
			'Enter the recipient number in international format, e.g. +919812345678.',
			['to'],
		);
		return '';
	}
	if (text.length > MAX_RECIPIENT_LENGTH) {
		addFieldIssue(
			ctx,
			`is ${text.length} characters long, too long for a phone number`,
			'Enter one recipient number, e.g. +919812345678.',
			['to'],
		);
		return '';
	}
	const result = normalisePhoneNumber(text, defaultCountryCode);
	if (!result.ok) {
		addFieldIssue(ctx, result.problem, result.fix, ['to']);
		return '';
	}
	return result.phone;
}

/** A default country code without its "+": '' when none is given, undefined when the value is not one. */
export function countryCodeText(value: unknown): string | undefined {
	if (value === undefined || value === null || value === '') return '';
	const text = String(value).trim().replace(/^\+/, '');
	return /^[1-9]\d{0,3}$/.test(text) ? text : undefined;
}

export const defaultCountryCode = z.unknown().transform((value, ctx): string => {
	const text = countryCodeText(value);
	if (text === undefined) {
		addFieldIssue(
			ctx,
			`"${String(value)}" is not a country calling code`,
			'Enter 1 to 4 digits without "+", e.g. 91 for India or 1 for the USA, or leave it empty.',
		);
		return z.NEVER;
	}
	return text;
});
