import {
	sleep,
	type IDataObject,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { EventIdMemory, eventIdMemoryOf, type SavedEventIds } from './deduplication';
import type { EventIdsSave } from './savedEventIds';
import { warnUnsaved } from './unsavedWarning';
import { outputItemOf } from './inboundMessages';
import { readVerifiedEvents, type TriggerOptions } from './readVerifiedEvents';
import { refuse } from './refusal';
import { eventFiltersOf, triageEvents } from './triage';

export interface DeliverySummary extends IDataObject {
	received: number;
	accepted: number;
	duplicates: number;
	filteredOut: number;
}

/**
 * Production deliveries share the process's memory of this trigger; a test delivery gets a memory of its own,
 * so "Listen for test event" never swallows a production event or the other way round.
 */
function eventIdMemoryFor(context: IWebhookFunctions): EventIdMemory {
	if (context.getMode() === 'manual') return new EventIdMemory();
	const memory = eventIdMemoryOf(context.getWorkflow().id ?? '', context.getNode().id);
	memory.merge(context.getWorkflowStaticData('node') as SavedEventIds);
	return memory;
}

/**
 * n8n 2.40 builds a second Workflow over the same static data object after the webhook answers and before it saves
 * (WorkflowRunner.establishContextForPersistence), and that resets the changed flag this write set, so n8n would
 * never save it. Writing the stamp again a moment later, once n8n has done so but is still creating the execution,
 * sets the flag again.
 */
function writeEventIds(context: IWebhookFunctions, memory: EventIdMemory): EventIdsSave {
	const nodeStaticData = context.getWorkflowStaticData('node');
	const save = memory.newSave();
	Object.assign(nodeStaticData, save.fields);
	void sleep(0).then(() => {
		save.arm();
		nodeStaticData.recentEventIdsStamp = save.fields.recentEventIdsStamp;
	});
	return save;
}

/**
 * n8n answers an accepted delivery only after it has created the execution and saved the static data, and answers
 * 500 when it could not create the execution: then the sender retries, and the retry must not be taken for a
 * duplicate of an event that never ran. After a 2xx, n8n must have serialised the write to save it; when it did
 * not, the workaround above no longer matches this n8n, and retries elsewhere or after a restart may run again.
 */
function settleWhenAnswered(
	context: IWebhookFunctions,
	memory: EventIdMemory,
	eventIds: string[],
	save: EventIdsSave,
): void {
	const response = context.getResponseObject();
	response.once('finish', () => {
		if (response.statusCode < 200 || response.statusCode > 299) {
			for (const id of eventIds) memory.release(id);
			return;
		}
		if (!save.serialised && memory.takeUnsavedWarning()) warnUnsaved(context);
	});
}

export async function receiveDeliveryEvents(
	this: IWebhookFunctions,
): Promise<IWebhookResponseData> {
	const options = this.getNodeParameter('options', {}) as TriggerOptions;
	const verified = await readVerifiedEvents(this, options);
	if ('refusal' in verified) return refuse(this, verified.refusal);

	const filters = eventFiltersOf(this);
	const memory = (options.dropDuplicateEvents ?? true) ? eventIdMemoryFor(this) : undefined;
	const { accepted, duplicates, filteredOut } = triageEvents(verified.events, filters, memory);
	const summary: DeliverySummary = {
		received: verified.events.length,
		accepted: accepted.length,
		duplicates,
		filteredOut,
	};
	if (accepted.length === 0) {
		this.logger.debug('Messaging Trigger acknowledged a delivery without starting the workflow', {
			node: this.getNode().name,
			...summary,
		});
		return { webhookResponse: summary };
	}
	if (memory) {
		const save = writeEventIds(this, memory);
		settleWhenAnswered(
			this,
			memory,
			accepted.map((event) => event.event_id),
			save,
		);
	}
	return {
		webhookResponse: summary,
		workflowData: [accepted.map((event) => ({ json: outputItemOf(event) }))],
	};
}
