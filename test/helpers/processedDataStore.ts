import { createHash } from 'node:crypto';
import { DataDeduplicationService } from 'n8n-core';
import type {
	INode,
	DeduplicationItemTypes,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDeduplicationOutput,
} from 'n8n-workflow';

import { nodeProcessedValues, type ProcessedValues } from '../../nodes/shared/processedValues';

/**
 * n8n's database store for deduplication (packages/cli DeduplicationHelper, 'entries' mode) in memory: one row per
 * workflow and scope holding md5 hashes, a check records what it did not hold, the oldest go past maxEntries.
 * Every call is counted, with the size of the row it rewrote, so tests can say what the node costs the database.
 */
export class InMemoryProcessedData implements IDataDeduplicator {
	readonly rows = new Map<string, string[]>();

	/** `readThenWrite`: a check reads the row, yields, then writes it back, as n8n's findOne then update do. */
	constructor(private readonly options: { readThenWrite?: boolean } = {}) {}

	readonly calls: Array<{ kind: 'check' | 'remove'; values: number; rowAfter: number }> = [];

	private rowKey(scope: DeduplicationScope, context: ICheckProcessedContextData): string {
		const id = context.workflow.id;
		if (!id) throw new Error('n8n asserts a workflow id here');
		return scope === 'node' ? `${id}\nn:${context.node?.id ?? ''}` : `${id}\n`;
	}

	private static hash(value: DeduplicationItemTypes): string {
		return createHash('md5').update(value.toString()).digest('base64');
	}

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		const key = this.rowKey(scope, context);
		const row = [...(this.rows.get(key) ?? [])];
		if (this.options.readThenWrite) await new Promise((resolve) => setImmediate(resolve));
		const held = new Set(row);
		const output: IDeduplicationOutput = { new: [], processed: [] };
		for (const item of items) {
			const hash = InMemoryProcessedData.hash(item);
			if (held.has(hash)) output.processed.push(item);
			else {
				output.new.push(item);
				row.push(hash);
			}
		}
		if (options.maxEntries) row.splice(0, row.length - options.maxEntries);
		this.rows.set(key, row);
		this.calls.push({ kind: 'check', values: items.length, rowAfter: row.length });
		return output;
	}

	/** What a check of another process leaves when it read the rows before `values` were written: rows without them. */
	overwriteWithout(values: DeduplicationItemTypes[]): void {
		const hashes = new Set(values.map(InMemoryProcessedData.hash));
		for (const [key, row] of this.rows)
			this.rows.set(
				key,
				row.filter((hash) => !hashes.has(hash)),
			);
	}

	async removeProcessed(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		_options?: ICheckProcessedOptions,
	): Promise<void> {
		const key = this.rowKey(scope, context);
		const row = this.rows.get(key);
		if (!row) return;
		for (const hash of items.map(InMemoryProcessedData.hash)) {
			const index = row.indexOf(hash);
			if (index !== -1) row.splice(index, 1);
		}
		this.calls.push({ kind: 'remove', values: items.length, rowAfter: row.length });
	}

	async clearAllProcessedItems(
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
	): Promise<void> {
		this.rows.delete(this.rowKey(scope, context));
	}

	async getProcessedDataCount(
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
	): Promise<number> {
		return this.rows.get(this.rowKey(scope, context))?.length ?? 0;
	}
}

let installed: InMemoryProcessedData | undefined;

/** n8n initialises its store once per process; jest gives each test file its own module registry. */
export function processedDataStore(): InMemoryProcessedData {
	if (!installed) {
		installed = new InMemoryProcessedData();
		void DataDeduplicationService.init(installed);
	}
	return installed;
}

/** One node's view of the store: nodes/shared/processedValues over helpers as n8n-core binds them to a node. */
export function processedValuesOf(
	store: IDataDeduplicator,
	workflowId = 'wf',
	nodeId = 'node',
): ProcessedValues {
	const context = { workflow: { id: workflowId, active: true }, node: { id: nodeId } as INode };
	return nodeProcessedValues({
		helpers: {
			checkProcessedAndRecord: async (items, scope, options) =>
				await store.checkProcessedAndRecord(items, scope, context, options),
			removeProcessed: async (items, scope, options) =>
				await store.removeProcessed(items, scope, context, options),
		},
	});
}
