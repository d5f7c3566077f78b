/**
 * One header's value from any header shape either node meets: Node.js request headers (a trigger's delivery),
 * n8n's full response headers, or a Headers-like object with `get` (fetch, axios). The name is matched whatever
 * its case; a repeated header gives its first value; a missing or blank one gives undefined.
 */
export function readHeader(headers: unknown, name: string): string | undefined {
	if (!headers || typeof headers !== 'object') return undefined;
	const wanted = name.toLowerCase();
	const getter = (headers as { get?: unknown }).get;
	if (typeof getter === 'function') {
		const value = usable((getter as (key: string) => unknown).call(headers, wanted));
		if (value !== undefined) return value;
	}
	for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
		if (key.toLowerCase() !== wanted) continue;
		const found = usable(value);
		if (found !== undefined) return found;
	}
	return undefined;
}

function usable(value: unknown): string | undefined {
	const first: unknown = Array.isArray(value) ? value[0] : value;
	if (typeof first !== 'string' && typeof first !== 'number') return undefined;
	const text = String(first);
	return text.trim() === '' ? undefined : text;
}
