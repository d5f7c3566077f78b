import type { IExecuteFunctions } from 'n8n-workflow';

import { ItemParameters } from '../../../../../nodes/Messaging/actions/common/itemParameters';

type Parameters = Record<string, unknown>;

/** Resolves `={{ item }}` to the item index, anything else as is, and counts the resolutions per parameter. */
function fakeContext(
	parameters: Parameters,
	failFor: (name: string, itemIndex: number) => boolean = () => false,
) {
	const resolutions: Record<string, number> = {};
	const resolve = (value: unknown, itemIndex: number): unknown => {
		if (value === '={{ item }}') return itemIndex;
		if (Array.isArray(value)) return value.map((entry) => resolve(entry, itemIndex));
		if (value && typeof value === 'object') {
			return Object.fromEntries(
				Object.entries(value).map(([key, entry]) => [key, resolve(entry, itemIndex)]),
			);
		}
		return value;
	};
	const context = {
		getNodeParameter(
			name: string,
			itemIndex: number,
			fallback: unknown,
			options?: { rawExpressions?: boolean },
		) {
			const raw = name
				.split('.')
				.reduce<unknown>((value, key) => (value as Parameters | undefined)?.[key], parameters);
			const value = raw === undefined ? fallback : raw;
			if (options?.rawExpressions) return value;
			resolutions[name] = (resolutions[name] ?? 0) + 1;
			if (failFor(name, itemIndex)) throw new Error(`${name} failed for item ${itemIndex}`);
			return resolve(value, itemIndex);
		},
	};
	return { context: context as unknown as IExecuteFunctions, resolutions };
}

function readForItems(
	parameters: ItemParameters,
	name: string,
	items: number,
	fallback: unknown = '',
): unknown[] {
	return Array.from({ length: items }, (_, itemIndex) =>
		parameters.read(name, itemIndex, fallback),
	);
}

describe('ItemParameters', () => {
	test('a parameter without an expression is resolved once for the whole run', () => {
		const { context, resolutions } = fakeContext({
			entityId: '1201159876543210123',
		});

		expect(readForItems(new ItemParameters(context), 'entityId', 3)).toEqual(
			Array(3).fill('1201159876543210123'),
		);
		expect(resolutions.entityId).toBe(1);
	});

	test('an absent parameter is resolved once and every item gets the fallback', () => {
		const { context, resolutions } = fakeContext({ options: {} });

		expect(readForItems(new ItemParameters(context), 'options.timeout', 3, '')).toEqual([
			'',
			'',
			'',
		]);
		expect(resolutions['options.timeout']).toBe(1);
	});

	test('a parameter with an expression is resolved once per item', () => {
		const { context, resolutions } = fakeContext({ to: '={{ item }}' });

		expect(readForItems(new ItemParameters(context), 'to', 3)).toEqual([0, 1, 2]);
		expect(resolutions.to).toBe(3);
	});

	test('an expression nested in a collection makes the whole collection per item', () => {
		const { context, resolutions } = fakeContext({
			variables: { variable: [{ name: 'order_id', value: '={{ item }}' }] },
		});

		expect(readForItems(new ItemParameters(context), 'variables', 2, {})).toEqual([
			{ variable: [{ name: 'order_id', value: 0 }] },
			{ variable: [{ name: 'order_id', value: 1 }] },
		]);
		expect(resolutions.variables).toBe(2);
	});

	test('a read that throws is not kept: every item fails with its own error', () => {
		const { context } = fakeContext(
			{ options: { timeout: 'soon' } },
			(name) => name === 'options.timeout',
		);
		const parameters = new ItemParameters(context);

		expect(() => parameters.read('options.timeout', 0, '')).toThrow(
			'options.timeout failed for item 0',
		);
		expect(() => parameters.read('options.timeout', 1, '')).toThrow(
			'options.timeout failed for item 1',
		);
	});
});
