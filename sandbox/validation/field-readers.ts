import { ApiError, invalidField, missingField } from '../http/api-error';

const E164 = /^\+[1-9]\d{6,14}$/;

export function rejectUnknownFields(
	fields: Record<string, unknown>,
	allowed: readonly string[],
	context: string,
): void {
	for (const name of Object.keys(fields)) {
		if (!allowed.includes(name)) {
			throw invalidField(
				name,
				`Unknown field '${name}' for ${context}. Allowed fields: ${allowed.join(', ')}.`,
			);
		}
	}
}

export function requiredString(
	fields: Record<string, unknown>,
	name: string,
	hint: string,
): string {
	const value = fields[name];
	if (value === undefined || value === null) throw missingField(name, hint);
	if (typeof value !== 'string') {
		throw invalidField(
			name,
			`The field '${name}' must be a string, got ${describeType(value)}. ${hint}`,
		);
	}
	if (value.trim() === '') throw missingField(name, hint);
	return value;
}

export function optionalString(
	fields: Record<string, unknown>,
	name: string,
	hint: string,
): string | null {
	return fields[name] === undefined ? null : requiredString(fields, name, hint);
}

export function recipient(fields: Record<string, unknown>): string {
	const to = requiredString(
		fields,
		'to',
		'Give the recipient in E.164 format, e.g. +919812345678.',
	);
	if (!E164.test(to)) {
		throw invalidField(
			'to',
			`'${to}' is not an E.164 number. Use a plus sign, the country code and the number without spaces, e.g. +919812345678.`,
		);
	}
	return to;
}

export function absoluteHttpUrl(fields: Record<string, unknown>, name: string): string | null {
	const value = optionalString(fields, name, 'Give an absolute http(s) URL.');
	if (value === null) return null;
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		throw invalidField(name, `'${value}' is not an absolute URL. Give an absolute http(s) URL.`);
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw invalidField(name, `The ${name} must use http or https, got '${url.protocol}'.`);
	}
	return value;
}

/** Object fields travel as JSON-encoded text; JSON bodies may also carry them as nested objects. */
export function objectField(
	fields: Record<string, unknown>,
	name: string,
	hint: string,
): Record<string, unknown> | null {
	let value = fields[name];
	if (value === undefined) return null;
	if (typeof value === 'string') {
		try {
			value = JSON.parse(value);
		} catch {
			throw new ApiError(
				400,
				'invalid_body',
				`The field '${name}' is not valid JSON-encoded text. ${hint}`,
				name,
			);
		}
	}
	if (value === null || typeof value !== 'object' || Array.isArray(value)) {
		throw invalidField(
			name,
			`The field '${name}' must be a JSON object, got ${describeType(value)}. ${hint}`,
		);
	}
	return value as Record<string, unknown>;
}

/** Variable values are text or numbers, never empty. */
export function checkVariableValues(
	values: Record<string, unknown>,
	field: string,
	path: string = field,
): void {
	for (const [key, value] of Object.entries(values)) {
		const where = `${path}.${key}`;
		if (typeof value === 'number' && Number.isFinite(value)) continue;
		if (typeof value !== 'string') {
			throw invalidField(
				field,
				`The value of ${where} must be a string or a number, got ${describeType(value)}.`,
			);
		}
		if (value.trim() === '')
			throw invalidField(field, `The value of ${where} is empty. Give it a value.`);
	}
}

export function describeType(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

export function describeKeyDifference(
	declared: readonly string[],
	given: readonly string[],
): string | null {
	const missing = declared.filter((key) => !given.includes(key));
	const unknown = given.filter((key) => !declared.includes(key));
	const parts = [
		missing.length > 0 ? `missing ${missing.join(', ')}` : '',
		unknown.length > 0 ? `unknown ${unknown.join(', ')}` : '',
	].filter(Boolean);
	return parts.length === 0 ? null : parts.join('; ');
}
