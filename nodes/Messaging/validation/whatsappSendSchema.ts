import { z } from 'zod';

import {
	addFieldIssue,
	defaultCountryCode,
	describeType,
	jsonObjectText,
	normaliseRecipient,
	requiredText,
	variableValue,
} from './fieldSchemas';
import type { FieldGuide } from './issueToNodeError';

export const whatsappFieldGuide: FieldGuide = {
	to: { label: 'To', fix: 'Enter the recipient WhatsApp number in international format, e.g. +919812345678.' },
	messageType: { label: 'Message Type', fix: 'Choose Template or Session.' },
	templateName: { label: 'Template Name', fix: 'Enter the approved WhatsApp template name, e.g. order_update.' },
	componentsInputMode: { label: 'Components Input', fix: 'Choose Using Fields Below or Using JSON.' },
	components: {
		label: 'Components',
		fix: 'Add header, body or button rows with a position (1, 2, …) and a text or number value.',
	},
	componentsJson: {
		label: 'Components (JSON)',
		fix: 'Enter a JSON object, e.g. {"header": {"1": "Order 1234"}, "body": {"1": "Asha", "2": "24 Nov"}, "buttons": {"1": "track-1234"}}.',
	},
	text: { label: 'Text', fix: 'Enter the message text, e.g. Your order has shipped.' },
	defaultCountryCode: { label: 'Default Country Code', fix: 'Enter 1 to 4 digits, e.g. 91, or leave it empty.' },
};

export const COMPONENT_SECTIONS = ['header', 'body', 'buttons'] as const;
export type ComponentSection = (typeof COMPONENT_SECTIONS)[number];
export type TemplateComponents = Partial<Record<ComponentSection, Record<string, string | number>>>;

const POSITION = /^[1-9]\d{0,2}$/;
const POSITION_FIX = 'Number the variables of each section 1, 2, 3… in the order the template declares them.';

function isBlank(value: unknown): boolean {
	return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function checkPositions(keys: string[], path: Array<string | number>, ctx: z.RefinementCtx): void {
	const numbers = keys.map(Number).sort((a, b) => a - b);
	const gap = numbers.findIndex((position, offset) => position !== offset + 1);
	if (gap !== -1) {
		addFieldIssue(
			ctx,
			`has positions ${numbers.join(', ')}, but they must run 1, 2, 3… without gaps or repeats`,
			POSITION_FIX,
			path,
		);
	}
}

function addSection(
	sectionValues: Array<[string, unknown, Array<string | number>]>,
	section: ComponentSection,
	components: TemplateComponents,
	ctx: z.RefinementCtx,
	sectionPath: Array<string | number>,
): void {
	if (sectionValues.length === 0) return;
	const values: Record<string, string | number> = {};
	for (const [position, value, path] of sectionValues) {
		if (!POSITION.test(position)) {
			addFieldIssue(
				ctx,
				`has the position "${position}" in ${section}, but positions are whole numbers from 1`,
				POSITION_FIX,
				path,
			);
			continue;
		}
		if (position in values) {
			addFieldIssue(ctx, `has the ${section} position ${position} twice`, POSITION_FIX, path);
			continue;
		}
		const checked = variableValue.safeParse(value);
		if (checked.success) values[position] = checked.data;
		else for (const issue of checked.error.issues) ctx.addIssue({ ...issue, path });
	}
	checkPositions(Object.keys(values), sectionPath, ctx);
	components[section] = values;
}

function componentsFromRows(value: unknown, ctx: z.RefinementCtx): TemplateComponents {
	const components: TemplateComponents = {};
	if (isBlank(value)) return components;
	if (typeof value !== 'object' || Array.isArray(value)) {
		addFieldIssue(ctx, `is ${describeType(value)}, not header/body/buttons rows`, whatsappFieldGuide.components.fix, [
			'components',
		]);
		return components;
	}
	for (const [section, rows] of Object.entries(value as Record<string, unknown>)) {
		if (!(COMPONENT_SECTIONS as readonly string[]).includes(section) || !Array.isArray(rows)) {
			addFieldIssue(ctx, `has an unknown section "${section}"`, 'Use only the header, body and buttons sections.', [
				'components',
				section,
			]);
			continue;
		}
		const entries = rows.map(
			(row: { index?: unknown; value?: unknown }, rowIndex): [string, unknown, Array<string | number>] => [
				String(row?.index ?? '').trim(),
				row?.value,
				['components', section, rowIndex],
			],
		);
		addSection(entries, section as ComponentSection, components, ctx, ['components', section]);
	}
	return components;
}

function componentsFromJson(value: unknown, ctx: z.RefinementCtx): TemplateComponents {
	const components: TemplateComponents = {};
	const parsed = jsonObjectText('{"body": {"1": "Asha"}}').safeParse(value);
	if (!parsed.success) {
		for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: ['componentsJson', ...issue.path] });
		return components;
	}
	for (const [section, sectionValue] of Object.entries(parsed.data)) {
		const path = ['componentsJson', section];
		if (!(COMPONENT_SECTIONS as readonly string[]).includes(section)) {
			addFieldIssue(
				ctx,
				`has an unknown key "${section}"`,
				'Use only the keys header, body and buttons at the top level.',
				['componentsJson'],
			);
			continue;
		}
		if (typeof sectionValue !== 'object' || sectionValue === null || Array.isArray(sectionValue)) {
			addFieldIssue(
				ctx,
				`has ${describeType(sectionValue)} under "${section}", but it must be an object keyed by position`,
				'Write the section as {"1": "first value", "2": "second value"}.',
				path,
			);
			continue;
		}
		const entries = Object.entries(sectionValue as Record<string, unknown>).map(
			([position, positionValue]): [string, unknown, Array<string | number>] => [
				position,
				positionValue,
				[...path, position],
			],
		);
		addSection(entries, section as ComponentSection, components, ctx, path);
	}
	return components;
}

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

export const whatsappSendSchema = rawWhatsappInput.transform((input, ctx): WhatsappSendInput => {
	const to = normaliseRecipient(input.to, input.defaultCountryCode, ctx);

	if (input.messageType === 'session') {
		if (!isBlank(input.templateName)) {
			addFieldIssue(
				ctx,
				'is set on a session message',
				'Session messages carry only Text: switch Message Type to Template or clear Template Name.',
				['templateName'],
			);
		}
		const hasComponents =
			!isBlank(input.componentsJson) ||
			(typeof input.components === 'object' && input.components !== null && Object.keys(input.components).length > 0);
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
		for (const issue of templateName.error.issues) ctx.addIssue({ ...issue, path: ['templateName'] });
		return z.NEVER;
	}
	const components =
		input.componentsInputMode === 'json'
			? componentsFromJson(input.componentsJson, ctx)
			: componentsFromRows(input.components, ctx);
	const hasComponents = Object.keys(components).length > 0;
	return { to, type: 'template', templateName: templateName.data, ...(hasComponents ? { components } : {}) };
});
