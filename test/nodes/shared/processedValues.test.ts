import { InMemoryProcessedData, processedValuesOf } from '../../helpers/processedDataStore';

/** nodes/shared/processedValues over n8n's store semantics, bound to one workflow and node as n8n-core binds them. */
describe('n8n’s deduplication store, as the nodes use it', () => {
	const store = new InMemoryProcessedData();
	const valuesOf = (nodeId: string) => processedValuesOf(store, 'wf-processed', nodeId);

	it('answers the values recorded before and records the rest, per node', async () => {
		const values = valuesOf('node-a');
		expect(await values.checkAndRecord(['a', 'b'], 10)).toEqual(new Set());
		expect(await values.checkAndRecord(['b', 'c'], 10)).toEqual(new Set(['b']));
		expect(await valuesOf('node-b').checkAndRecord(['b'], 10)).toEqual(new Set());
	});

	it('forgets removed values, and the oldest past maxEntries', async () => {
		const values = valuesOf('node-c');
		await values.checkAndRecord(['x', 'y', 'z'], 2);
		await values.remove(['z'], 2);
		expect(await values.checkAndRecord(['x', 'y', 'z'], 2)).toEqual(new Set(['y']));
	});
});
