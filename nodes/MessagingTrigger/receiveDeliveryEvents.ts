import {
	sleep,
	type IDataObject,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { holdExecution, workflowIdOf } from './executionGate';
import { EventIdMemory, eventIdMemoryOf, type SavedEventIds } from './deduplication';
import { batchLimitsOf } from './batchSettings';
import { canHold, isCollecting, joinBatch, type BatchLimits } from './eventBatches';
import type { MessagingEvent } from './events';
import { whenAnswered } from './answered';
import type { EventIdsSave } from './savedEventIds';
import { warnOvertaken, warnUnsaved } from './unsavedWarning';
import { outputItemOf } from './inboundMessages';
import { readVerifiedEvents, type Refusal, type TriggerOptions } from './readVerifiedEvents';
import { refuse, respondWithJson } from './refusal';
import { holdAnswerInSaveOrder, saveOrderOf, type SaveOrder } from './saveOrder';
import { canWaitForSlot, takeStartSlot } from './startSlots';
import { eventFiltersOf, triageEvents } from './triage';

export interface DeliverySummary extends IDataObject {
	received: number;
	accepted: number;
	duplicates: number;
	filteredOut: number;
}

/** Seconds a sender is asked to wait before it sends again what this process could not take or start. */
export const RETRY_AFTER_SECONDS = 1;

const BUSY: Refusal = {
	statusCode: 503,
	code: 'busy',
	message:
		'This n8n process holds as many events as it may while their executions start. Send the delivery again after Retry-After.',
	retryAfterSeconds: RETRY_AFTER_SECONDS,
	quiet: true,
};

const NOT_STARTED: Refusal = {
	statusCode: 503,
	code: 'execution_not_started',
	message:
		'n8n could not start the execution that held this delivery’s events, so none of them ran. Send the delivery again.',
	retryAfterSeconds: RETRY_AFTER_SECONDS,
};

/**
 * Production deliveries share the process's memory of this trigger; a test delivery gets a memory of its own,
 * so "Listen for test event" never swallows a production event or the other way round.
 */
function eventIdMemoryFor(context: IWebhookFunctions): EventIdMemory {
	if (context.getMode() === 'manual') return new EventIdMemory();
	const memory = eventIdMemoryOf(workflowIdOf(context), context.getNode().id);
	memory.merge(context.getWorkflowStaticData('node') as SavedEventIds);
	return memory;
}

/**
 * n8n 2.40 builds a second Workflow over the same static data object after the webhook answers and before it saves
 * (WorkflowRunner.establishContextForPersistence), and that resets the changed flag this write set, so n8n would
 * never save it. Writing the stamp again a moment later, once n8n has done so but is still creating the execution,
 * sets the flag again.
 */
function writeEventIds(
	context: IWebhookFunctions,
	memory: EventIdMemory,
	events: MessagingEvent[],
): EventIdsSave {
	const nodeStaticData = context.getWorkflowStaticData('node');
	const save = memory.newSave(events.map((event) => event.event_id));
	Object.assign(nodeStaticData, save.fields);
	void sleep(0).then(() => {
		save.arm();
		nodeStaticData.recentEventIdsStamp = save.fields.recentEventIdsStamp;
	});
	return save;
}

/** n8n's answer goes out once the database holds the ids its save carried (see SaveOrder). */
function answerOnceSaved(context: IWebhookFunctions, save: EventIdsSave, order: SaveOrder): void {
	const held = holdAnswerInSaveOrder(order, context.getResponseObject(), () =>
		warnOvertaken(context),
	);
	save.onSerialised(held.serialised);
}

/**
 * Hands `events` to n8n as one execution and reports, once n8n has answered, whether it started. n8n answers an
 * accepted delivery only after it has created the execution and saved the static data, and answers 500 when it
 * could not create it: then the sender retries, and the retry must not be taken for a duplicate of an event that
 * never ran. After a 2xx, n8n must have serialised the write to save it; when it did not, the workaround above no
 * longer matches this n8n, and retries elsewhere or after a restart may run again.
 */
function startExecution(
	context: IWebhookFunctions,
	events: MessagingEvent[],
	memory: EventIdMemory | undefined,
	summary: DeliverySummary,
	order: SaveOrder | undefined,
): { response: IWebhookResponseData; started: Promise<boolean> } {
	const save = memory ? writeEventIds(context, memory, events) : undefined;
	if (save && order) answerOnceSaved(context, save, order);
	const started = whenAnswered(context.getResponseObject()).then((ok) => {
		if (ok && save && !save.serialised && memory?.takeUnsavedWarning()) warnUnsaved(context);
		return ok;
	});
	const items = events.map((event) => ({ json: outputItemOf(event) }));
	if (save)
		holdExecution(
			context,
			events.map((event) => event.event_id),
			started,
		);
	return { response: { webhookResponse: summary, workflowData: [items] }, started };
}

/** Waits for this delivery's turn to hand its execution to n8n (see SaveOrder); without a save, there is none. */
async function turnToHandOver(
	context: IWebhookFunctions,
	memory: EventIdMemory | undefined,
	followed = false,
): Promise<SaveOrder | undefined> {
	if (!memory) return undefined;
	const order = saveOrderOf(workflowIdOf(context));
	await order.turn(followed);
	return order;
}

/** The leader hands the whole batch to n8n; every other delivery of it is answered once that succeeded or failed. */
async function runInBatch(
	context: IWebhookFunctions,
	{ accepted, memory, summary, confirm }: Delivery,
	limits: BatchLimits,
): Promise<IWebhookResponseData> {
	const key = `${workflowIdOf(context)}/${context.getNode().id}`;
	const { batch, leads, joinedAfterMs } = joinBatch(key, accepted, limits);
	if (!leads) {
		// Answered here once the leader's execution exists, not through n8n: n8n keeps what it holds for a request
		// (at its default expression engine, an isolate) until webhook() returns, and a batch holds up to 100.
		void batch.outcome.then(async (outcome) => {
			confirm(outcome === 'started');
			if (outcome !== 'started') {
				refuse(context, NOT_STARTED);
				return;
			}
			await sleep(batch.answerDelayMs(joinedAfterMs));
			respondWithJson(context.getResponseObject(), 200, summary);
		});
		return { noWebhookResponse: true };
	}
	const events = await batch.collect();
	const order = await turnToHandOver(context, memory, isCollecting(key));
	const { response, started } = startExecution(context, events, memory, summary, order);
	void started.then((ok) => {
		confirm(ok);
		batch.settle(ok ? 'started' : 'not_started');
	});
	return response;
}

/** Without batching: one execution per delivery, handed to n8n once a start slot is free. */
async function runAlone(
	context: IWebhookFunctions,
	{ accepted, memory, summary, confirm }: Delivery,
): Promise<IWebhookResponseData> {
	const order = await turnToHandOver(context, memory);
	const release = await takeStartSlot();
	const { response, started } = startExecution(context, accepted, memory, summary, order);
	void started.then((ok) => {
		release();
		confirm(ok);
	});
	return response;
}

/** One delivery's accepted events, and how to tell the memory whether n8n started them. */
interface Delivery {
	accepted: MessagingEvent[];
	memory: EventIdMemory | undefined;
	summary: DeliverySummary;
	confirm: (started: boolean) => void;
}

/** Registers the delivery's claims as unconfirmed until `confirm` says whether n8n started them. */
function claimsAwaitingConfirmation(
	accepted: MessagingEvent[],
	memory: EventIdMemory | undefined,
): (started: boolean) => void {
	let confirm: (started: boolean) => void = () => undefined;
	const outcome = new Promise<boolean>((resolve) => (confirm = resolve));
	memory?.awaitConfirmation(
		accepted.map((event) => event.event_id),
		outcome,
	);
	return confirm;
}

/** True once every first delivery these repeats wait for was started by n8n. */
async function firstDeliveriesStarted(unconfirmed: Array<Promise<boolean>>): Promise<boolean> {
	if (unconfirmed.length === 0) return true;
	return (await Promise.all(unconfirmed)).every(Boolean);
}

export async function receiveDeliveryEvents(
	this: IWebhookFunctions,
): Promise<IWebhookResponseData> {
	const options = this.getNodeParameter('options', {}) as TriggerOptions;
	const limits = batchLimitsOf(this);
	const verified = await readVerifiedEvents(this, options);
	if ('refusal' in verified) return refuse(this, verified.refusal);
	if (limits ? !canHold(verified.events.length) : !canWaitForSlot()) return refuse(this, BUSY);

	const filters = eventFiltersOf(this);
	const memory = (options.dropDuplicateEvents ?? true) ? eventIdMemoryFor(this) : undefined;
	const { accepted, duplicates, filteredOut, unconfirmed } = triageEvents(
		verified.events,
		filters,
		memory,
	);
	const confirm = claimsAwaitingConfirmation(accepted, memory);
	// A repeat of an event whose first delivery n8n has not answered yet: 200 only once that one started.
	if (!(await firstDeliveriesStarted(unconfirmed))) {
		confirm(false);
		return refuse(this, NOT_STARTED);
	}
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
	const delivery = { accepted, memory, summary, confirm };
	return limits ? await runInBatch(this, delivery, limits) : await runAlone(this, delivery);
}
