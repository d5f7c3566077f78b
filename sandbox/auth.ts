import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from './http/api-error';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="messaging-api"' };

/** Auth comes before validation, so an empty send tells a bad key (401) from a good one (400). */
export function authenticate(headers: IncomingHttpHeaders, knownKeys: ReadonlySet<string>): string {
	const header = headers.authorization;
	const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
	if (!match) {
		throw new ApiError(
			401,
			'missing_api_key',
			'No API key: send the header Authorization: Bearer <API_KEY>.',
			undefined,
			CHALLENGE,
		);
	}
	if (!knownKeys.has(match[1])) {
		throw new ApiError(
			401,
			'invalid_api_key',
			'The API key is not valid. Check the key in your credential.',
			undefined,
			CHALLENGE,
		);
	}
	return match[1];
}
