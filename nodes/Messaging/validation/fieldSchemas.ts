import { z } from 'zod/v3';

/** Issues raised here carry `params.fix`, the sentence telling the user how to correct the value. */
export function addFieldIssue(
	ctx: z.RefinementCtx,
	message: string,
	fix: string,
	path: Array<string | number> = [],
): void {
	ctx.addIssue({ code: z.ZodIssueCode.custom, message, path, params: { fix } });
}

export function isBlank(value: unknown): boolean {
	return (
		value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
	);
}

export function describeType(value: unknown): string {
	if (value === null) return 'null';
	if (value === undefined) return 'empty';
	if (Array.isArray(value)) return 'a list';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** DLT IDs are 19 digits long: as JSON numbers they silently lose digits, so only text is accepted. */
export function requiredText(maxLength: number, example: string) {
	return z.unknown().transform((value, ctx): string => {
		if (typeof value === 'number') {
			addFieldIssue(
				ctx,
				`is a number (${value}), but it must be text`,
				`Long numbers lose digits in JSON; pass the value as text, e.g. {{ String($json.id) }} or "${example}".`,
			);
			return z.NEVER;
		}
		if (typeof value !== 'string') {
			const fix =
				value === undefined || value === null
					? `Enter a value, e.g. ${example}.`
					: `Map a text value, e.g. ${example}.`;
			addFieldIssue(
				ctx,
				value === undefined || value === null
					? 'is empty'
					: `is ${describeType(value)}, but it must be text`,
				fix,
			);
			return z.NEVER;
		}
		const trimmed = value.trim();
		if (trimmed === '') {
			addFieldIssue(ctx, 'is empty', `Enter a value, e.g. ${example}.`);
			return z.NEVER;
		}
		if (trimmed.length > maxLength) {
			addFieldIssue(
				ctx,
				`is ${trimmed.length} characters long, more than the ${maxLength} allowed`,
				`Shorten it to at most ${maxLength} characters.`,
			);
			return z.NEVER;
		}
		return trimmed;
	});
}

const MAX_VARIABLE_LENGTH = 1000;

/** Text of at most 1000 characters or a finite number: a template variable's value as it is sent. */
export function isVariableValue(value: unknown): value is string | number {
	if (typeof value === 'string') return value.length <= MAX_VARIABLE_LENGTH;
	return typeof value === 'number' && Number.isFinite(value);
}

const variableValue = z.unknown().transform((value, ctx): string | number => {
	if (isVariableValue(value)) return value;
	if (typeof value === 'string') {
		addFieldIssue(
			ctx,
			`is ${value.length} characters long, more than the ${MAX_VARIABLE_LENGTH} allowed`,
			`Shorten the value to at most ${MAX_VARIABLE_LENGTH} characters.`,
		);
		return z.NEVER;
	}
	addFieldIssue(
		ctx,
		`is ${describeType(value)}, but variable values must be text or numbers`,
		'Map a single text or number value, e.g. {{ $json.customer_name }}; turn objects into text first, e.g. {{ JSON.stringify($json.order) }}.',
	);
	return z.NEVER;
});

/**
 * `variableValue.safeParse`, without zod's parse context and result for a value it accepts as it is: a campaign
 * checks several variables per item, and those objects were a good part of what its check pass allocated.
 */
export function parseVariableValue(
	value: unknown,
): z.SafeParseReturnType<unknown, string | number> {
	return isVariableValue(value) ? { success: true, data: value } : variableValue.safeParse(value);
}

/** `json` parameters arrive as text from the editor, or as an object when an expression returns one. */
export function jsonObjectText(example: string) {
	return z.unknown().transform((value, ctx): Record<string, unknown> => {
		let parsed: unknown = value;
		if (typeof value === 'string') {
			if (value.trim() === '') {
				addFieldIssue(ctx, 'is empty', `Enter a JSON object, e.g. ${example}.`);
				return z.NEVER;
			}
			try {
				parsed = JSON.parse(value);
			} catch (error) {
				addFieldIssue(
					ctx,
					`is not valid JSON (${(error as Error).message})`,
					`Enter a JSON object, e.g. ${example}.`,
				);
				return z.NEVER;
			}
		}
		if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
			addFieldIssue(
				ctx,
				`is ${describeType(parsed)}, but it must be a JSON object`,
				`Enter a JSON object, e.g. ${example}.`,
			);
			return z.NEVER;
		}
		return parsed as Record<string, unknown>;
	});
}

const MAX_URL_LENGTH = 2048;

/** Why trimmed text is not an absolute http(s) URL of at most 2048 characters; undefined when it is one. */
export function httpUrlProblem(trimmed: string): string | undefined {
	if (trimmed.length > MAX_URL_LENGTH) return `is longer than ${MAX_URL_LENGTH} characters`;
	let url: URL;
	try {
		url = new URL(trimmed);
	} catch {
		return `"${trimmed}" is not an absolute URL`;
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:')
		return `uses "${url.protocol}", but only http and https are allowed`;
	return undefined;
}

/** An optional absolute http(s) URL; `fix` tells how to correct a bad one. */
export function optionalUrl(fix: string) {
	return z.unknown().transform((value, ctx): string | undefined => {
		if (value === undefined || value === null || (typeof value === 'string' && value.trim() === ''))
			return undefined;
		if (typeof value !== 'string') {
			addFieldIssue(ctx, `is ${describeType(value)}, but it must be a URL`, fix);
			return z.NEVER;
		}
		const trimmed = value.trim();
		const problem = httpUrlProblem(trimmed);
		if (problem !== undefined) {
			addFieldIssue(ctx, problem, fix);
			return z.NEVER;
		}
		return trimmed;
	});
}

export const optionalCallbackUrl = optionalUrl(
	'Paste the Production URL of a Messaging Trigger node, e.g. https://n8n.example.com/webhook/messaging-events.',
);
