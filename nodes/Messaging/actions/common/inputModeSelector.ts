import type { INodeProperties } from 'n8n-workflow';

interface InputModeSelector {
	displayName: string;
	name: string;
	description: string;
	rowsDescription: string;
	jsonDescription: string;
	show: NonNullable<INodeProperties['displayOptions']>['show'];
}

/** The "rows or one JSON object" switch shared by Template Variables and Components. */
export function inputModeSelector(selector: InputModeSelector): INodeProperties {
	return {
		displayName: selector.displayName,
		name: selector.name,
		type: 'options',
		default: 'fields',
		options: [
			{ name: 'Using Fields Below', value: 'fields', description: selector.rowsDescription },
			{ name: 'Using JSON', value: 'json', description: selector.jsonDescription },
		],
		description: selector.description,
		displayOptions: { show: selector.show },
	};
}
