import { z } from 'zod/v3';

import {
	addFieldIssue,
	describeType,
	isBlank,
	jsonObjectText,
	parseVariableValue,
} from './fieldSchemas';

export const COMPONENTS_FIX =
	'Add header, body or button rows with a position (1, 2, …) and a text or number value.';

export const COMPONENT_SECTIONS = ['header', 'body', 'buttons'] as const;
export type ComponentSection = (typeof COMPONENT_SECTIONS)[number];
export type TemplateComponents = Partial<Record<ComponentSection, Record<string, string | number>>>;

const POSITION = /^[1-9]\d{0,2}$/;
const POSITION_FIX =
	'Number the variables of each section 1, 2, 3… in the order the template declares them.';

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
	const values = Object.create(null) as Record<string, string | number>;
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
		const checked = parseVariableValue(value);
		if (checked.success) values[position] = checked.data;
		else for (const issue of checked.error.issues) ctx.addIssue({ ...issue, path });
	}
	checkPositions(Object.keys(values), sectionPath, ctx);
	components[section] = values;
}

/** The Components fixed collection: one row list per section, each row a position and a value. */
export function componentsFromRows(value: unknown, ctx: z.RefinementCtx): TemplateComponents {
	const components: TemplateComponents = {};
	if (isBlank(value)) return components;
	if (typeof value !== 'object' || Array.isArray(value)) {
		addFieldIssue(ctx, `is ${describeType(value)}, not header/body/buttons rows`, COMPONENTS_FIX, [
			'components',
		]);
		return components;
	}
	for (const [section, rows] of Object.entries(value as Record<string, unknown>)) {
		if (!(COMPONENT_SECTIONS as readonly string[]).includes(section) || !Array.isArray(rows)) {
			addFieldIssue(
				ctx,
				`has an unknown section "${section}"`,
				'Use only the header, body and buttons sections.',
				['components', section],
			);
			continue;
		}
		const entries = rows.map(
			(
				row: { index?: unknown; value?: unknown },
				rowIndex,
			): [string, unknown, Array<string | number>] => [
				String(row?.index ?? '').trim(),
				row?.value,
				['components', section, rowIndex],
			],
		);
		addSection(entries, section as ComponentSection, components, ctx, ['components', section]);
	}
	return components;
}

/** Components (JSON): `{"header": {"1": …}, "body": {…}, "buttons": {…}}`. */
export function componentsFromJson(value: unknown, ctx: z.RefinementCtx): TemplateComponents {
	const components: TemplateComponents = {};
	const parsed = jsonObjectText('{"body": {"1": "Asha"}}').safeParse(value);
	if (!parsed.success) {
		for (const issue of parsed.error.issues)
			ctx.addIssue({ ...issue, path: ['componentsJson', ...issue.path] });
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
