import { z } from 'zod/v3';

import {
	addFieldIssue,
	describeType,
	jsonObjectText,
	optionalCallbackUrl,
	parseVariableValue,
	requiredText,
} from './fieldSchemas';
import type { FieldGuide } from './issueToNodeError';
import { defaultCountryCode, normaliseRecipient } from './recipientSchemas';

export const smsFieldGuide: FieldGuide = {
	to: {
		label: 'To',
		fix: 'Enter the recipient number in international format, e.g. +919812345678.',
	},
	variablesInputMode: {
		label: 'Template Variables Input',
		fix: 'Choose Using Fields Below or Using JSON.',
	},
	entityId: {
		label: 'DLT Entity ID',
		fix: 'Enter your registered DLT Principal Entity ID, e.g. 1201159876543210123.',
	},
	templateId: {
		label: 'DLT Template ID',
		fix: 'Enter the approved DLT content template ID, e.g. 1207161111111111111.',
	},
	variables: {
		label: 'Template Variables',
		fix: 'Give every row a variable name declared in the template and a text or number value.',
	},
	variablesJson: {
		label: 'Template Variables (JSON)',
		fix: 'Enter a flat JSON object, e.g. {"customer_name": "Asha", "order_id": 1234}.',
	},
	callbackUrl: {
		label: 'Options > Callback URL',
		fix: 'Paste the Production URL of a Messaging Trigger node, or leave it empty.',
	},
	defaultCountryCode: {
		label: 'Options > Default Country Code',
		fix: 'Enter 1 to 4 digits, e.g. 91, or leave it empty.',
	},
};

export const VARIABLE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const NAME_FIX =
	'Use the variable name exactly as declared in the DLT template: letters, digits, "_", "-" or ".", at most 64 characters, e.g. customer_name.';

function checkVariableName(
	name: string,
	path: Array<string | number>,
	seen: Set<string>,
	ctx: z.RefinementCtx,
): void {
	if (!VARIABLE_NAME.test(name)) {
		addFieldIssue(
			ctx,
			name === '' ? 'has a variable without a name' : `has an invalid variable name "${name}"`,
			NAME_FIX,
			path,
		);
	} else if (seen.has(name)) {
		addFieldIssue(
			ctx,
			`names the variable "${name}" twice`,
			'Keep one row per variable name.',
			path,
		);
	}
	seen.add(name);
}

const variableRows = z
	.unknown()
	.transform((value, ctx): Array<{ name: string; value: unknown }> => {
		if (value === undefined || value === null) return [];
		const rows = (value as { variable?: unknown }).variable;
		if (typeof value !== 'object' || (rows !== undefined && !Array.isArray(rows))) {
			addFieldIssue(
				ctx,
				`is ${describeType(value)}, not a list of name/value rows`,
				smsFieldGuide.variables.fix,
			);
			return z.NEVER;
		}
		return ((rows ?? []) as Array<{ name?: unknown; value?: unknown }>).map((row, rowIndex) => {
			const name = row?.name;
			if (name !== undefined && name !== null && typeof name !== 'string') {
				addFieldIssue(ctx, `is ${describeType(name)}, but variable names must be text`, NAME_FIX, [
					rowIndex,
					'name',
				]);
			}
			return { name: typeof name === 'string' ? name.trim() : '', value: row?.value };
		});
	});

export const DLT_ID_MAX_LENGTH = 64;

const rawSmsInput = z.object({
	to: z.unknown(),
	entityId: requiredText(DLT_ID_MAX_LENGTH, '1201159876543210123'),
	templateId: requiredText(DLT_ID_MAX_LENGTH, '1207161111111111111'),
	variablesInputMode: z
		.enum(['fields', 'json'], { errorMap: () => ({ message: 'must be "fields" or "json"' }) })
		.default('fields'),
	variables: variableRows.optional(),
	variablesJson: z.unknown().optional(),
	callbackUrl: optionalCallbackUrl,
	defaultCountryCode,
});

export const smsSendSchema = rawSmsInput.transform((input, ctx) => {
	const to = normaliseRecipient(input.to, input.defaultCountryCode, ctx);
	// No prototype: a variable named "__proto__" must become a field, not silently vanish.
	const content = Object.create(null) as Record<string, string | number>;
	const seen = new Set<string>();

	if (input.variablesInputMode === 'json') {
		const parsed = jsonObjectText('{"customer_name": "Asha"}').safeParse(input.variablesJson);
		if (!parsed.success) {
			for (const issue of parsed.error.issues)
				ctx.addIssue({ ...issue, path: ['variablesJson', ...issue.path] });
			return z.NEVER;
		}
		for (const [name, value] of Object.entries(parsed.data)) {
			checkVariableName(name, ['variablesJson', name], seen, ctx);
			const checked = parseVariableValue(value);
			if (checked.success) content[name] = checked.data;
			else
				for (const issue of checked.error.issues)
					ctx.addIssue({ ...issue, path: ['variablesJson', name] });
		}
	} else {
		(input.variables ?? []).forEach((row, rowIndex) => {
			checkVariableName(row.name, ['variables', rowIndex, 'name'], seen, ctx);
			const checked = parseVariableValue(row.value);
			if (checked.success) content[row.name] = checked.data;
			else
				for (const issue of checked.error.issues)
					ctx.addIssue({ ...issue, path: ['variables', rowIndex, 'value'] });
		});
	}

	return {
		to,
		entityId: input.entityId,
		templateId: input.templateId,
		content,
		callbackUrl: input.callbackUrl,
	};
});

export type SmsSendInput = z.output<typeof smsSendSchema>;
