export const SIGNATURE_HEADER = 'x-messaging-signature';
export const TIMESTAMP_HEADER = 'x-messaging-timestamp';

export type RequestHeaders = Record<string, string | string[] | undefined>;

export function readHeader(headers: RequestHeaders, name: string): string | undefined {
	const value = headers[name];
	const first = Array.isArray(value) ? value[0] : value;
	return first === undefined || first.trim() === '' ? undefined : first;
}
