import type { z } from 'zod/v3';

import { httpUrlProblem, isBlank, isVariableValue } from './fieldSchemas';
import { normalisePhoneNumber } from './phone';
import { countryCodeText, MAX_RECIPIENT_LENGTH } from './recipientSchemas';
import { DLT_ID_MAX_LENGTH, smsSendSchema, VARIABLE_NAME } from './smsSendSchema';
import type { SmsSendInput } from './smsSendSchema';

/** What a plain check answers when it cannot vouch for a value: the schema then decides, and words any refusal. */
const UNSURE = Symbol('unsure');

/** requiredText's accepted value: text, 1 to 64 characters once trimmed. */
function plainId(value: unknown): string | undefined {
	if (typeof value !== 'string') return undefined;
	const trimmed = value.trim();
	return trimmed !== '' && trimmed.length <= DLT_ID_MAX_LENGTH ? trimmed : undefined;
}

/** defaultCountryCode's accepted value, for empty values, text and numbers only. */
function plainCountryCode(value: unknown): string | undefined {
	if (
		value !== undefined &&
		value !== null &&
		typeof value !== 'string' &&
		typeof value !== 'number'
	)
		return undefined;
	return countryCodeText(value);
}

/** normaliseRecipient's accepted value: text of a phone number, completed with the country code. */
function plainRecipient(value: unknown, countryCode: string): string | undefined {
	if (typeof value !== 'string' || value.length > MAX_RECIPIENT_LENGTH) return undefined;
	const result = normalisePhoneNumber(value, countryCode);
	return result.ok ? result.phone : undefined;
}

/** optionalCallbackUrl's accepted value: none, or an absolute http(s) URL, trimmed. */
function plainCallbackUrl(value: unknown): string | undefined | typeof UNSURE {
	if (isBlank(value)) return undefined;
	if (typeof value !== 'string') return UNSURE;
	const trimmed = value.trim();
	return httpUrlProblem(trimmed) === undefined ? trimmed : UNSURE;
}

/** The variable rows as the schema turns them into `content`: valid, distinct names with text or number values. */
function plainContent(variables: unknown): Record<string, string | number> | undefined {
	// No prototype, as the schema's: a variable named "__proto__" is a field like any other.
	const content = Object.create(null) as Record<string, string | number>;
	if (variables === undefined || variables === null) return content;
	if (typeof variables !== 'object' || Array.isArray(variables)) return undefined;
	const rows = (variables as { variable?: unknown }).variable;
	if (rows === undefined) return content;
	if (!Array.isArray(rows)) return undefined;
	for (let rowIndex = 0; rowIndex < rows.length; rowIndex++) {
		const row = rows[rowIndex] as { name?: unknown; value?: unknown } | null | undefined;
		if (typeof row !== 'object' || row === null) return undefined;
		const { name, value } = row;
		if (typeof name !== 'string' || !isVariableValue(value)) return undefined;
		const trimmed = name.trim();
		if (!VARIABLE_NAME.test(trimmed) || trimmed in content) return undefined;
		content[trimmed] = value;
	}
	return content;
}

/**
 * smsSendSchema's output for an item whose every field is plainly valid, or undefined when any field is not, or is
 * not the common case (JSON variables, unusual types). zod's parse allocates a path, a context and a result per
 * field and per transform, about 10 KB per item, and a campaign's check pass made V8 grow the heap before the first
 * send (docs/pace-and-scale.md). The rules are the schema's own; the test holds both to the same output.
 */
export function plainSmsSend(input: Record<string, unknown>): SmsSendInput | undefined {
	if (input.variablesInputMode !== undefined && input.variablesInputMode !== 'fields')
		return undefined;
	const entityId = plainId(input.entityId);
	const templateId = plainId(input.templateId);
	const countryCode = plainCountryCode(input.defaultCountryCode);
	const callbackUrl = plainCallbackUrl(input.callbackUrl);
	if (entityId === undefined || templateId === undefined || countryCode === undefined)
		return undefined;
	if (callbackUrl === UNSURE) return undefined;
	const to = plainRecipient(input.to, countryCode);
	const content = plainContent(input.variables);
	if (to === undefined || content === undefined) return undefined;
	return { to, entityId, templateId, content, callbackUrl };
}

/** `smsSendSchema.safeParse`, past zod for a plainly valid item; anything else gets the schema's check and words. */
export function parseSmsSend(
	input: Record<string, unknown>,
): z.SafeParseReturnType<unknown, SmsSendInput> {
	const plain = plainSmsSend(input);
	return plain ? { success: true, data: plain } : smsSendSchema.safeParse(input);
}
