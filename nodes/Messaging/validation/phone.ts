export type PhoneNormalisation =
	| { ok: true; phone: string }
	| { ok: false; problem: string; fix: string };

const E164 = /^\+[1-9]\d{6,14}$/;
const VISUAL_SEPARATORS = /[\s\-.()]/g;

/** National numbers are completed only with an explicit country code: a guessed country texts a stranger. */
export function normalisePhoneNumber(input: string, defaultCountryCode = ''): PhoneNormalisation {
	const compact = input.replace(VISUAL_SEPARATORS, '');
	if (compact === '') {
		return {
			ok: false,
			problem: 'is empty',
			fix: 'Enter the recipient number, e.g. +919812345678.',
		};
	}
	if (!/^(\+|\d)\d*$/.test(compact)) {
		return {
			ok: false,
			problem: `"${input}" contains characters that are not part of a phone number`,
			fix: 'Use digits with an optional leading "+", e.g. +919812345678. Spaces, dashes, dots and parentheses are removed for you.',
		};
	}

	let international: string;
	if (compact.startsWith('+')) {
		international = compact;
	} else if (compact.startsWith('00')) {
		international = `+${compact.slice(2)}`;
	} else if (defaultCountryCode === '') {
		return {
			ok: false,
			problem: `"${input}" has no country code`,
			fix: 'Write the number with its country code, e.g. +919812345678, or set Options > Default Country Code (e.g. 91) to complete national numbers.',
		};
	} else {
		const nationalNumber = compact.startsWith('0') ? compact.slice(1) : compact;
		international = `+${defaultCountryCode}${nationalNumber}`;
	}

	if (!E164.test(international)) {
		return {
			ok: false,
			problem: `"${input}" is not a valid international number (E.164 allows a "+", a country code not starting with 0 and 7 to 15 digits in all)`,
			fix: 'Check the digits and the country code, e.g. +919812345678.',
		};
	}
	return { ok: true, phone: international };
}
