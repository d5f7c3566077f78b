import type { IExecuteFunctions } from 'n8n-workflow';

function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (value && typeof value === 'object') return Object.values(value).some(holdsExpression);
	return false;
}

/**
 * Every getNodeParameter call pays for n8n's resolution and schema checks, even for a fixed value. A
 * parameter without an expression has the same value for every item, so it is resolved once per run;
 * one with an expression is resolved once per item, as before. A read that throws is never kept, so
 * every item still fails with its own error.
 */
export class ItemParameters {
	private readonly fixedValues = new Map<string, unknown>();

	private readonly perItem = new Set<string>();

	constructor(private readonly context: IExecuteFunctions) {}

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
}

const parametersByRun = new WeakMap<IExecuteFunctions, ItemParameters>();

/** The execution context is one node run, so its cache ends with the run. */
export function itemParametersOf(context: IExecuteFunctions): ItemParameters {
	let parameters = parametersByRun.get(context);
	if (!parameters) {
		parameters = new ItemParameters(context);
		parametersByRun.set(context, parameters);
	}
	return parameters;
}
