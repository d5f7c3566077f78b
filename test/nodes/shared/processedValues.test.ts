import { DataDeduplicationService } from 'n8n-core';
import type { INode, IExecuteFunctions } from 'n8n-workflow';

import { nodeProcessedValues } from '../../../nodes/shared/processedValues';
import { processedDataStore } from '../../helpers/processedDataStore';

/** An execute context's helpers as n8n-core builds them: n8n's store, for the context's workflow and node. */
function contextOf(nodeId: string) {
	const contextData = {
		workflow: { id: 'wf-processed', active: true },
		node: { id: nodeId } as INode,
	};
	const service = () => DataDeduplicationService.getInstance();
	const helpers: Pick<IExecuteFunctions['helpers'], 'checkProcessedAndRecord' | 'removeProcessed'> =
		{
			checkProcessedAndRecord: async (items, scope, options) =>
				await service().checkProcessedAndRecord(items, scope, contextData, options),
			removeProcessed: async (items, scope, options) =>
				await service().removeProcessed(items, scope, contextData, options),
		};
	return { helpers };
}

describe('n8n’s deduplication store, as the nodes use it', () => {
	beforeAll(() => processedDataStore());

	it('answers the values recorded before and records the rest, per node', async () => {
		const values = nodeProcessedValues(contextOf('node-a'));
		expect(await values.checkAndRecord(['a', 'b'], 10)).toEqual(new Set());
		expect(await values.checkAndRecord(['b', 'c'], 10)).toEqual(new Set(['b']));
		expect(await nodeProcessedValues(contextOf('node-b')).checkAndRecord(['b'], 10)).toEqual(
			new Set(),
		);
	});

	it('forgets removed values, and the oldest past maxEntries', async () => {
		const values = nodeProcessedValues(contextOf('node-c'));
		await values.checkAndRecord(['x', 'y', 'z'], 2);
		await values.remove(['z'], 2);
		expect(await values.checkAndRecord(['x', 'y', 'z'], 2)).toEqual(new Set(['y']));
	});
});
