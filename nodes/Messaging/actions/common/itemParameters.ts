import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { readsItemFieldsOnly, resolveItemFields } from './itemFieldReads';

function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (value && typeof value === 'object') return Object.values(value).some(holdsExpression);
	return false;
}

/**
 * One per node run, made by the router and handed to every operation. Every getNodeParameter call pays for
 * n8n's resolution and schema checks, even for a fixed value. A parameter without an expression has the same
 * value for every item, so it is resolved once per run; one with an expression is resolved once per item. A
 * read that throws is never kept, so every item still fails with its own error. The cache pays: see
 * docs/bench.md, "What the node changed" (about 6% of the first pass).
 */
export class ItemParameters {
	private readonly fixedValues = new Map<string, unknown>();

	private readonly perItem = new Set<string>();

	/** Raw values whose every expression is a bare `{{ $json.field }}`: read from the item (itemFieldReads.ts). */
	private readonly fieldReads = new Map<string, unknown>();

	private items: INodeExecutionData[] | undefined;

	/** `readFields`: read bare `{{ $json.field }}` expressions from the item, not through n8n's expression engine. */
	constructor(
		readonly context: IExecuteFunctions,
		private readonly readFields = false,
	) {}

	read(name: string, itemIndex: number, fallback: unknown): unknown {
		if (this.fixedValues.has(name)) return this.fixedValues.get(name);
		const fromItem = this.readFromItem(name, itemIndex);
		if (fromItem) return fromItem.value;
		const value = this.context.getNodeParameter(name, itemIndex, fallback);
		if (!this.perItem.has(name)) {
			const raw = this.context.getNodeParameter(name, itemIndex, fallback, {
				rawExpressions: true,
			});
			if (this.readFields && readsItemFieldsOnly(raw)) this.fieldReads.set(name, raw);
			if (holdsExpression(raw)) this.perItem.add(name);
			else this.fixedValues.set(name, value);
		}
		return value;
	}

	private readFromItem(name: string, itemIndex: number): { value: unknown } | undefined {
		if (!this.fieldReads.has(name)) return undefined;
		this.items ??= this.context.getInputData();
		const json = this.items[itemIndex]?.json;
		return json ? resolveItemFields(this.fieldReads.get(name), json) : undefined;
	}

	/** Whether a parameter already read holds no expression: its value is the same for every item. */
	isFixed(name: string): boolean {
		return this.fixedValues.has(name);
	}

	/** A "rows or one JSON object" input: its mode, and only the parameter that mode shows. */
	readRowsOrJson(
		itemIndex: number,
		names: { mode: string; rows: string; json: string },
	): Record<string, unknown> {
		const mode = this.read(names.mode, itemIndex, 'fields');
		return {
			[names.mode]: mode,
			[names.rows]: mode === 'fields' ? this.read(names.rows, itemIndex, {}) : undefined,
			[names.json]: mode === 'json' ? this.read(names.json, itemIndex, '') : undefined,
		};
	}

	/** One entry of the Options collection; an option's expression is evaluated only when it is read. */
	readOption(name: string, itemIndex: number): unknown {
		return this.read(`options.${name}`, itemIndex, '');
	}
}
