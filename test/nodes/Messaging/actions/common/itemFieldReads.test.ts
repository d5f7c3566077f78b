import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import {
	readsItemFieldsOnly,
	resolveItemFields,
} from '../../../../../nodes/Messaging/actions/common/itemFieldReads';
import { ItemParameters } from '../../../../../nodes/Messaging/actions/common/itemParameters';
import { noOpNode } from '../../../../helpers/nodeFixtures';
import { runWorkflow } from '../../../../helpers/runWorkflow';

const PROBE_TYPE = 'n8n-nodes-messaging-test.fieldProbe';
const resolvedByN8n: string[] = [];

/** Reads its parameters for every item both ways: through ItemParameters and through n8n's own resolution. */
class FieldProbe implements INodeType {
	description = {
		displayName: 'Field Probe',
		name: 'fieldProbe',
		group: ['transform'],
		version: 1,
		description: 'Reads its parameters both ways',
		defaults: { name: 'Field Probe' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{ displayName: 'To', name: 'to', type: 'string', default: '' },
			{
				displayName: 'Variables',
				name: 'variables',
				type: 'fixedCollection',
				typeOptions: { multipleValues: true },
				default: {},
				options: [
					{
						name: 'variable',
						displayName: 'Variable',
						values: [
							{ displayName: 'Name', name: 'name', type: 'string', default: '' },
							{ displayName: 'Value', name: 'value', type: 'string', default: '' },
						],
					},
				],
			},
		],
	} as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		// Counts what ItemParameters leaves to n8n's expression engine.
		const context = Object.create(this, {
			getNodeParameter: {
				value: (...args: Parameters<IExecuteFunctions['getNodeParameter']>) => {
					if (!(args[3] as { rawExpressions?: boolean } | undefined)?.rawExpressions)
						resolvedByN8n.push(`${String(args[0])} ${args[1]}`);
					return this.getNodeParameter(...args);
				},
			},
		}) as IExecuteFunctions;
		const parameters = new ItemParameters(context, true);
		return [
			this.getInputData().map((_, itemIndex) => ({
				json: {
					ours: ['to', 'variables'].map((name) => parameters.read(name, itemIndex, '')),
					n8n: ['to', 'variables'].map((name) => this.getNodeParameter(name, itemIndex, '')),
				} as never,
			})),
		];
	}
}

describe('bare {{ $json.field }} expressions read from the item', () => {
	test("give what n8n's expression engine gives, for every kind of field (n8n-core's engine)", async () => {
		const values: unknown[] = [
			'+919812345678',
			9812345678,
			0,
			'',
			true,
			false,
			null,
			'x'.repeat(50),
		];
		const items = [
			...values.map((phone) => ({ json: { phone, name: phone } })),
			{ json: { other: 1 } },
			{ json: { phone: { nested: 1 }, name: ['a'] } },
		];
		const probe = {
			...noOpNode('Probe'),
			type: PROBE_TYPE,
			parameters: {
				to: '={{ $json.phone }}',
				variables: {
					variable: [
						{ name: 'customer', value: '={{ $json.name }}' },
						{ name: 'fixed', value: 'Fixed' },
					],
				},
			},
		};
		const { outputs, error } = await runWorkflow({
			workflow: {
				nodes: [noOpNode('Rows'), probe],
				connections: { Rows: { main: [[{ node: 'Probe', type: 'main', index: 0 }]] } },
			},
			credentials: { baseUrl: 'http://127.0.0.1:9', apiKey: 'unused' },
			items,
			extraNodeTypes: { [PROBE_TYPE]: new FieldProbe() },
		});

		expect(error).toBeUndefined();
		expect(outputs.Probe).toHaveLength(items.length);
		for (const { json } of outputs.Probe) expect(json.ours).toEqual(json.n8n);
		// n8n resolves the first item (and learns the parameter's shape), a missing field and an object field.
		const last = items.length - 1;
		expect(resolvedByN8n).toEqual(
			[0, last - 1, last].flatMap((item) => [`to ${item}`, `variables ${item}`]),
		);
	});
});

describe('readsItemFieldsOnly', () => {
	test('only when every expression is a bare field read', () => {
		expect(readsItemFieldsOnly('={{ $json.phone }}')).toBe(true);
		expect(readsItemFieldsOnly({ variable: [{ name: 'a', value: '={{$json.a}}' }] })).toBe(true);
		expect(readsItemFieldsOnly('+91')).toBe(false);
		expect(readsItemFieldsOnly('=+91{{ $json.phone }}')).toBe(false);
		expect(readsItemFieldsOnly('={{ $json.phone.trim() }}')).toBe(false);
		expect(readsItemFieldsOnly('={{ $json["phone"] }}')).toBe(false);
		expect(readsItemFieldsOnly(['={{ $json.a }}', '={{ $now }}'])).toBe(false);
	});
});

describe('resolveItemFields', () => {
	test('leaves a field holding an object or an array to n8n, and never reads the prototype', () => {
		expect(resolveItemFields('={{ $json.a }}', { a: { b: 1 } })).toBeUndefined();
		expect(resolveItemFields('={{ $json.a }}', { a: [1] })).toBeUndefined();
		expect(resolveItemFields('={{ $json.toString }}', {})).toBeUndefined();
		expect(resolveItemFields('={{ $json.a }}', {})).toBeUndefined();
		expect(resolveItemFields(['={{ $json.a }}', 'b'], { a: 1 })).toEqual({ value: [1, 'b'] });
	});
});
