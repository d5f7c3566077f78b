import type { IExecuteFunctions } from 'n8n-workflow';

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

	constructor(readonly context: IExecuteFunctions) {}

	read(name: string, itemIndex: number, fallback: unknown): unknown {
		if (this.fixedValues.has(name)) return this.fixedValues.get(name);
		const value = this.context.getNodeParameter(name, itemIndex, fallback);
		if (!this.perItem.has(name)) {
			const raw = this.context.getNodeParameter(name, itemIndex, fallback, {
				rawExpressions: true,
			});
			if (holdsExpression(raw)) this.perItem.add(name);
			else this.fixedValues.set(name, value);
		}
		return value;
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
