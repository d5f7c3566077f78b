// `={{ $json.phone }}`: the whole value is one field of the item, read as is.
const ITEM_FIELD = /^=\{\{\s*\$json\.([A-Za-z_$][\w$]*)\s*\}\}$/;

type PlainValue = string | number | boolean | null | undefined;

function isPlain(value: unknown): value is PlainValue {
	return value === null || ['string', 'number', 'boolean', 'undefined'].includes(typeof value);
}

/**
 * Whether every expression in a parameter's raw value is a bare `{{ $json.field }}`, and there is at least one.
 * n8n builds a data proxy and a global context (with $now and $today) for every expression it evaluates, about
 * 50 KB of garbage each: on a campaign's four such fields a row, most of what the node allocates before sending.
 */
export function readsItemFieldsOnly(raw: unknown): boolean {
	let fields = 0;
	const check = (value: unknown): boolean => {
		if (typeof value === 'string') {
			if (!value.startsWith('=')) return true;
			fields++;
			return ITEM_FIELD.test(value);
		}
		if (Array.isArray(value)) return value.every(check);
		if (value && typeof value === 'object') return Object.values(value).every(check);
		return true;
	};
	return check(raw) && fields > 0;
}

/**
 * The raw value with each `{{ $json.field }}` replaced by the item's field, as n8n resolves it; undefined when a
 * field is missing or holds an object or an array: those are left to n8n's own resolution and its errors.
 */
export function resolveItemFields(
	raw: unknown,
	json: Record<string, unknown>,
): { value: unknown } | undefined {
	let plain = true;
	const resolve = (value: unknown): unknown => {
		if (typeof value === 'string') {
			const field = ITEM_FIELD.exec(value)?.[1];
			if (field === undefined) return value;
			const read = json[field];
			if (!Object.hasOwn(json, field) || !isPlain(read)) plain = false;
			return read;
		}
		if (Array.isArray(value)) return value.map(resolve);
		if (value && typeof value === 'object')
			return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, resolve(entry)]));
		return value;
	};
	const value = resolve(raw);
	return plain ? { value } : undefined;
}
