import type { IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';

import { ItemParameters } from '../../../../../nodes/Messaging/actions/common/itemParameters';
import {
	readBatchSettings,
	readSendSettings,
} from '../../../../../nodes/Messaging/actions/common/sendSettings';
import { Messaging } from '../../../../../nodes/Messaging/Messaging.node';
import { messagingNode } from '../../../../helpers/nodeFixtures';

/** A node added today, at the node's default version. */
const node: INode = messagingNode({}, { id: 'send-settings', typeVersion: 1.1 });

function contextWithOptions(options: Record<string, unknown>, onNode = node): IExecuteFunctions {
	return {
		getNode: () => onNode,
		getNodeParameter: (name: string, _itemIndex: number, fallback: unknown) =>
			name.startsWith('options.') ? (options[name.slice('options.'.length)] ?? fallback) : fallback,
	} as unknown as IExecuteFunctions;
}

/** Both readers, as the router calls them; an option belongs to one of them, so at most one throws. */
function readAllSettings(options: Record<string, unknown>) {
	const parameters = new ItemParameters(contextWithOptions(options));
	return { ...readSendSettings(parameters, 0), ...readBatchSettings(parameters) };
}

/** Every number option of every resource, as the editor shows it. */
const numberOptions: INodeProperties[] = new Messaging().description.properties
	.filter((property) => property.name === 'options' && property.type === 'collection')
	.flatMap((collection) => (collection.options ?? []) as INodeProperties[])
	.filter(
		(option, index, all) =>
			option.type === 'number' && all.findIndex((other) => other.name === option.name) === index,
	);

describe('send options: the editor bounds and the check agree', () => {
	test('there are number options to walk', () => {
		expect(numberOptions.map((option) => option.name).sort()).toEqual([
			'maxConcurrency',
			'maxPerSecond',
			'maxTries429',
			'sendOnceHours',
			'timeout',
		]);
	});

	test.each(numberOptions.map((option) => [option.displayName, option] as const))(
		'%s',
		(_label, option) => {
			const { minValue, maxValue } = option.typeOptions as { minValue: number; maxValue?: number };
			const range =
				maxValue === undefined ? `of at least ${minValue}` : `from ${minValue} to ${maxValue}`;
			const refused = `Item 0: 'Options > ${option.displayName}' is %s, but it must be a number ${range}`;

			expect(() => readAllSettings({ [option.name]: minValue })).not.toThrow();
			expect(() => readAllSettings({ [option.name]: minValue - 1 })).toThrow(
				refused.replace('%s', String(minValue - 1)),
			);
			if (maxValue !== undefined) {
				expect(() => readAllSettings({ [option.name]: maxValue })).not.toThrow();
				expect(() => readAllSettings({ [option.name]: maxValue + 1 })).toThrow(
					refused.replace('%s', String(maxValue + 1)),
				);
			}
			expect(() => readAllSettings({ [option.name]: 'soon' })).toThrow(
				refused.replace('%s', 'soon'),
			);
			expect(Object.values(readAllSettings({}))).toContain(option.default);
		},
	);

	test('an unset option takes the default the editor shows', () => {
		expect(readAllSettings({})).toEqual({
			bodyEncoding: 'form',
			timeoutMs: 30000,
			maxConcurrency: 0,
			maxPerSecond: 0,
			maxTriesPerMessage: 3,
			sendOnceHours: 24,
		});
	});

	test('a node saved at version 1 sends every time unless Send Once Within is set', () => {
		const savedAtOne = messagingNode({}, { id: 'saved-at-1', typeVersion: 1 });
		const read = (options: Record<string, unknown>) =>
			readBatchSettings(new ItemParameters(contextWithOptions(options, savedAtOne)));
		expect(read({}).sendOnceHours).toBe(0);
		expect(read({ sendOnceHours: 24 }).sendOnceHours).toBe(24);
		expect(new Messaging().description.defaultVersion).toBe(1.1);
	});

	test('a refusal says how to fix it, and Max Messages per Second keeps its fraction', () => {
		expect(() => readAllSettings({ timeout: 5 })).toThrow(
			expect.objectContaining({
				description:
					'Set Timeout to a number from 1000 to 600000, or remove the option to use the default (30000).',
			}),
		);
		expect(readAllSettings({ maxPerSecond: 2.5, maxConcurrency: 7.9 })).toMatchObject({
			maxPerSecond: 2.5,
			maxConcurrency: 7,
		});
	});
});

describe('send settings per item', () => {
	/** Options as saved (`raw`, with expressions) and as n8n resolves them for each item (`resolved`). */
	function contextWithItemOptions(
		raw: Record<string, unknown>,
		resolved: (itemIndex: number) => Record<string, unknown>,
	): IExecuteFunctions {
		return {
			getNode: () => node,
			getNodeParameter: (
				name: string,
				itemIndex: number,
				fallback: unknown,
				options?: { rawExpressions?: boolean },
			) => {
				if (!name.startsWith('options.')) return fallback;
				const key = name.slice('options.'.length);
				const values = options?.rawExpressions ? raw : resolved(itemIndex);
				return values[key] ?? fallback;
			},
		} as unknown as IExecuteFunctions;
	}

	test('options without an expression give every item the same settings, checked once', () => {
		const options = { timeout: 5000, bodyEncoding: 'json' };
		const context = contextWithItemOptions(options, () => options);
		const reads = jest.spyOn(context, 'getNodeParameter');
		const parameters = new ItemParameters(context);
		const first = readSendSettings(parameters, 0);
		const readsForFirst = reads.mock.calls.length;
		const others = [1, 2, 3].map((itemIndex) => readSendSettings(parameters, itemIndex));
		expect(first).toEqual({ bodyEncoding: 'json', timeoutMs: 5000 });
		for (const settings of others) expect(settings).toBe(first);
		expect(reads.mock.calls.length).toBe(readsForFirst);
	});

	test('an option with an expression is read and checked for each item', () => {
		const context = contextWithItemOptions(
			{ idempotencyKey: '={{ $json.orderId }}', timeout: 5000 },
			(itemIndex) => ({ idempotencyKey: `order-${itemIndex}`, timeout: 5000 }),
		);
		const parameters = new ItemParameters(context);
		const settings = [0, 1, 2].map((itemIndex) => readSendSettings(parameters, itemIndex));
		expect(settings.map((each) => each.idempotencyKey)).toEqual(['order-0', 'order-1', 'order-2']);
		expect(settings.every((each) => each.timeoutMs === 5000)).toBe(true);
	});

	test('an item whose fixed options are refused leaves nothing shared: the next item is refused too', () => {
		const options = { timeout: 5 };
		const parameters = new ItemParameters(contextWithItemOptions(options, () => options));
		expect(() => readSendSettings(parameters, 0)).toThrow("Item 0: 'Options > Timeout'");
		expect(() => readSendSettings(parameters, 1)).toThrow("Item 1: 'Options > Timeout'");
	});
});
