import { z } from 'zod/v3';

import { addFieldIssue, describeType, isBlank, requiredText } from './fieldSchemas';
import type { FieldGuide } from './issueToNodeError';
import { defaultCountryCode, normaliseRecipient } from './recipientSchemas';
import {
	COMPONENTS_FIX,
	componentsFromJson,
	componentsFromRows,
	type TemplateComponents,
} from './templateComponents';

export const whatsappFieldGuide: FieldGuide = {
	to: {
		label: 'To',
		fix: 'Enter the recipient WhatsApp number in international format, e.g. +919812345678.',
	},
	messageType: { label: 'Message Type', fix: 'Choose Template or Session.' },
	templateName: {
		label: 'Template Name',
		fix: 'Enter the approved WhatsApp template name, e.g. order_update.',
	},
	componentsInputMode: {
		label: 'Components Input',
		fix: 'Choose Using Fields Below or Using JSON.',
	},
	components: { label: 'Components', fix: COMPONENTS_FIX },
	componentsJson: {
		label: 'Components (JSON)',
		fix: 'Enter a JSON object, e.g. {"header": {"1": "Order 1234"}, "body": {"1": "Asha", "2": "24 Nov"}, "buttons": {"1": "track-1234"}}.',
	},
	text: { label: 'Text', fix: 'Enter the message text, e.g. Your order has shipped.' },
	defaultCountryCode: {
		label: 'Options > Default Country Code',
		fix: 'Enter 1 to 4 digits, e.g. 91, or leave it empty.',
	},
};

const sessionText = z.unknown().transform((value, ctx): string => {
	if (typeof value !== 'string' || value.trim() === '') {
		addFieldIssue(
			ctx,
			isBlank(value) ? 'is empty' : `is ${describeType(value)}, but it must be text`,
			whatsappFieldGuide.text.fix,
		);
		return z.NEVER;
	}
	if (value.length > 4096) {
		addFieldIssue(
			ctx,
			`is ${value.length} characters long, more than the 4096 WhatsApp allows`,
			'Shorten the text or split it into several messages.',
		);
		return z.NEVER;
	}
	return value;
});

const rawWhatsappInput = z.object({
	to: z.unknown(),
	messageType: z.enum(['template', 'session'], {
		errorMap: () => ({
			message: 'must be "template" or "session"',
			params: { fix: whatsappFieldGuide.messageType.fix },
		}),
	}),
	templateName: z.unknown().optional(),
	componentsInputMode: z
		.enum(['fields', 'json'], { errorMap: () => ({ message: 'must be "fields" or "json"' }) })
		.default('fields'),
	components: z.unknown().optional(),
	componentsJson: z.unknown().optional(),
	text: z.unknown().optional(),
	defaultCountryCode,
});

export type WhatsappSendInput =
	| { to: string; type: 'template'; templateName: string; components?: TemplateComponents }
	| { to: string; type: 'session'; text: string };

type RawWhatsappInput = z.infer<typeof rawWhatsappInput>;

function sessionMessage(
	input: RawWhatsappInput,
	to: string,
	ctx: z.RefinementCtx,
): WhatsappSendInput {
	if (!isBlank(input.templateName)) {
		addFieldIssue(
			ctx,
			'is set on a session message',
			'Session messages carry only Text: switch Message Type to Template or clear Template Name.',
			['templateName'],
		);
	}
	// Rows left empty count as none: a template treats `{ body: [] }` as no components, so a session must too.
	const rowLists =
		typeof input.components === 'object' && input.components !== null
			? Object.values(input.components)
			: [];
	const hasComponents =
		!isBlank(input.componentsJson) ||
		rowLists.some((rows) => (Array.isArray(rows) ? rows.length > 0 : !isBlank(rows)));
	if (hasComponents) {
		addFieldIssue(
			ctx,
			'are set on a session message',
			'Session messages carry only Text: switch Message Type to Template or remove the components.',
			['components'],
		);
	}
	const text = sessionText.safeParse(input.text);
	if (!text.success) {
		for (const issue of text.error.issues) ctx.addIssue({ ...issue, path: ['text'] });
		return z.NEVER;
	}
	return { to, type: 'session', text: text.data };
}

function templateMessage(
	input: RawWhatsappInput,
	to: string,
	ctx: z.RefinementCtx,
): WhatsappSendInput {
	if (!isBlank(input.text)) {
		addFieldIssue(
			ctx,
			'is set on a template message',
			'Template messages take their words from the approved template: switch Message Type to Session or clear Text.',
			['text'],
		);
	}
	const templateName = requiredText(512, 'order_update').safeParse(input.templateName);
	if (!templateName.success) {
		for (const issue of templateName.error.issues)
			ctx.addIssue({ ...issue, path: ['templateName'] });
		return z.NEVER;
	}
	const components =
		input.componentsInputMode === 'json'
			? componentsFromJson(input.componentsJson, ctx)
			: componentsFromRows(input.components, ctx);
	const hasComponents = Object.keys(components).length > 0;
	return {
		to,
		type: 'template',
		templateName: templateName.data,
		...(hasComponents ? { components } : {}),
	};
}

export const whatsappSendSchema = rawWhatsappInput.transform((input, ctx): WhatsappSendInput => {
	const to = normaliseRecipient(input.to, input.defaultCountryCode, ctx);
	return input.messageType === 'session'
		? sessionMessage(input, to, ctx)
		: templateMessage(input, to, ctx);
});
