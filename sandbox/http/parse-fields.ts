import { ApiError } from './api-error';

export type BodyEncoding = 'form' | 'json' | 'empty';

export function mediaType(contentTypeHeader: string | undefined): string {
	return (contentTypeHeader ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * Named key-value fields from a form or JSON body. An empty body is accepted whatever its content
 * type, so an empty send reaches validation (the node's credential test relies on that).
 */
export function parseFields(
	contentTypeHeader: string | undefined,
	rawBody: string,
): Record<string, unknown> {
	if (rawBody.trim() === '') return {};
	const type = mediaType(contentTypeHeader);
	if (type === 'application/x-www-form-urlencoded') return parseForm(rawBody);
	if (type === 'application/json') return parseJsonObject(rawBody);
	throw new ApiError(
		415,
		'unsupported_media_type',
		`Content type '${type || '(none)'}' is not supported. Send application/x-www-form-urlencoded or application/json.`,
	);
}

function parseForm(rawBody: string): Record<string, string> {
	const fields: Record<string, string> = {};
	for (const [name, value] of new URLSearchParams(rawBody)) {
		if (Object.hasOwn(fields, name)) {
			throw new ApiError(
				400,
				'invalid_field',
				`The field '${name}' appears more than once. Send it once.`,
				name,
			);
		}
		fields[name] = value;
	}
	return fields;
}

function parseJsonObject(rawBody: string): Record<string, unknown> {
	let parsed: unknown;
	try {
		parsed = JSON.parse(rawBody);
	} catch {
		throw new ApiError(400, 'invalid_body', 'The body is not valid JSON.');
	}
	if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
		throw new ApiError(400, 'invalid_body', 'The JSON body must be an object of named fields.');
	}
	return parsed as Record<string, unknown>;
}
