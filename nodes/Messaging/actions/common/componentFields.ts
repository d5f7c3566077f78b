import type { INodeProperties, INodePropertyCollection } from 'n8n-workflow';

import { inputModeSelector } from './inputModeSelector';

type Show = NonNullable<INodeProperties['displayOptions']>['show'];

const SECTIONS = {
	body: { displayName: 'Body Variable', hint: 'e.g. Asha', noun: 'body' },
	buttons: { displayName: 'Button Payload', hint: 'e.g. track-1234', noun: 'button' },
	header: { displayName: 'Header Variable', hint: 'e.g. Order 1234', noun: 'header' },
};

function listed(words: string[]): string {
	return words.join(', ').replace(/, ([^,]*)$/, ' and $1');
}

type Section = keyof typeof SECTIONS;

function componentRows(section: Section): INodePropertyCollection {
	return {
		displayName: SECTIONS[section].displayName,
		name: section,
		values: [
			{
				displayName: 'Position',
				name: 'index',
				type: 'number',
				default: 1,
				typeOptions: { minValue: 1 },
				description: `Position of the variable in the template ${section}: 1 for {{1}}, 2 for {{2}}, and so on`,
			},
			{
				displayName: 'Value',
				name: 'value',
				type: 'string',
				default: '',
				placeholder: SECTIONS[section].hint,
				description: 'Text or number to put in that position',
			},
		],
	};
}

/** Components Input, Components rows and Components (JSON) of a template message, for the given sections. */
export function componentFields(
	show: Show,
	sections: Section[],
	jsonPlaceholder: string,
): INodeProperties[] {
	const sectionNames = listed(sections.map((section) => `"${section}"`));
	return [
		inputModeSelector({
			displayName: 'Components Input',
			name: 'componentsInputMode',
			description: 'How to provide the values for the template variables',
			rowsDescription: `Enter ${listed(sections.map((section) => SECTIONS[section].noun))} values as rows`,
			jsonDescription: 'Give all components as one JSON object, e.g. from an expression',
			show,
		}),
		{
			displayName: 'Components',
			name: 'components',
			type: 'fixedCollection',
			typeOptions: { multipleValues: true },
			placeholder: 'Add Component Value',
			default: {},
			description:
				'Values for the template variables, by section and position. Leave empty for templates without variables.',
			displayOptions: { show: { ...show, componentsInputMode: ['fields'] } },
			options: [...sections].sort().map(componentRows),
		},
		{
			displayName: 'Components (JSON)',
			name: 'componentsJson',
			type: 'json',
			default: '{}',
			placeholder: `e.g. ${jsonPlaceholder}`,
			description: `A JSON object with optional ${sectionNames} keys, each mapping positions "1", "2", … to text or number values`,
			displayOptions: { show: { ...show, componentsInputMode: ['json'] } },
		},
	];
}
