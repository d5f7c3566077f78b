import type { IExecuteFunctions } from 'n8n-workflow';

/**
 * n8n's deduplication store (the one Remove Duplicates uses), as our nodes use it: one row per workflow and node,
 * shared by every process on the database. It has no read-only look-up: a check records every value it did not
 * hold. It keeps no time, only the latest `maxEntries` values, and it is not atomic: each call reads the row and
 * writes it back whole.
 */
export interface ProcessedValues {
	/** Records `values`; answers those the row held before. */
	checkAndRecord(values: string[], maxEntries: number): Promise<Set<string>>;
	remove(values: string[], maxEntries: number): Promise<void>;
}

/** The store's helpers as an execute context has them (a webhook context has none). */
export type ProcessedValuesContext = {
	helpers: Pick<IExecuteFunctions['helpers'], 'checkProcessedAndRecord' | 'removeProcessed'>;
};

export function nodeProcessedValues({ helpers }: ProcessedValuesContext): ProcessedValues {
	return {
		async checkAndRecord(values, maxEntries) {
			const result = await helpers.checkProcessedAndRecord(values, 'node', {
				mode: 'entries',
				maxEntries,
			});
			return new Set(result.processed.map(String));
		},
		async remove(values, maxEntries) {
			await helpers.removeProcessed(values, 'node', { mode: 'entries', maxEntries });
		},
	};
}
