import type { INodeExecutionData, WorkflowExecuteMode } from 'n8n-workflow';

import type { ProcessedValues } from '../shared/processedValues';
import { eventIdMemoryOf } from './deduplication';
import { foundOnce, recordEvents } from './recordedEvents';

/** What the gate reads of a webhook or execute context: both name the workflow, the node and the mode alike. */
export interface GateContext {
	getWorkflow(): { id?: string };
	getNode(): { id: string };
	getMode(): WorkflowExecuteMode;
}

/** What the execution's step reads besides: its logger, for a store that failed. */
export interface ExecutionGateContext extends GateContext {
	logger: { warn(message: string, meta?: object): void };
}

/**
 * n8n stores an execution and starts it before it saves the trigger's static data, which holds the ids of the
 * events the execution carries. A process killed in between ran those events while their ids were never saved, and
 * the sender's retries would run them again. So in the process that received them, the execution holds its events
 * until n8n has answered their delivery (it answers only after the save): 2xx, it passes them on; otherwise every
 * delivery of them was refused and its retries carry them, so it passes none.
 *
 * An execution no hand-over of this process made is one a queue-mode worker runs, or one n8n stored but never
 * started before it stopped, which n8n 2.x runs when it starts again (regular mode, "enqueued execution recovery")
 * even though it had refused the delivery. Such an execution passes on only the events no delivery to this process
 * carries or has claimed: the sender's retries run the others.
 */
interface HandOver {
	scope: string;
	eventIds: readonly string[];
	answered: Promise<boolean>;
	taken: boolean;
	/** Until n8n answers, the hand-over is kept whatever the bounds: its events are claimed and counted as carried. */
	settled: boolean;
}

/** Which hand-over of this process carries each event, keyed by workflow, node and event id. */
const carriers = new Map<string, HandOver>();
/** Oldest first; a hand-over is forgotten whole, so an execution never finds only part of its events carried. */
const handOvers = new Set<HandOver>();
let carriedEvents = 0;

/** Hand-overs remembered; past either bound the oldest is forgotten (its execution then passes its items on). */
export const MAX_GATES = 1_000;
export const MAX_CARRIED_EVENTS = 20_000;

export function workflowIdOf(context: Pick<GateContext, 'getWorkflow'>): string {
	return context.getWorkflow().id ?? '';
}

/** Only production deliveries are held: nothing retries a test event, and a user's Retry means to run again. */
function scopeOf(context: GateContext): string | undefined {
	if (context.getMode() !== 'webhook') return undefined;
	return `${workflowIdOf(context)}/${context.getNode().id}/`;
}

function remember(handOver: HandOver): void {
	for (const id of handOver.eventIds) carriers.set(handOver.scope + id, handOver);
	handOvers.add(handOver);
	carriedEvents += handOver.eventIds.length;
	void handOver.answered.then(() => (handOver.settled = true));
	// Held deliveries are bounded far below these caps, so only a few unsettled ones are ever stepped over.
	for (const oldest of handOvers) {
		if (handOvers.size <= MAX_GATES && carriedEvents <= MAX_CARRIED_EVENTS) break;
		if (oldest.settled) forget(oldest);
	}
}

function forget(handOver: HandOver): void {
	handOvers.delete(handOver);
	carriedEvents -= handOver.eventIds.length;
	for (const id of handOver.eventIds) {
		const key = handOver.scope + id;
		if (carriers.get(key) === handOver) carriers.delete(key);
	}
}

/**
 * Holds the production execution that carries `eventIds` until `answered` says how n8n answered its delivery.
 */
export function holdExecution(
	context: GateContext,
	eventIds: readonly string[],
	answered: Promise<boolean>,
): void {
	const scope = scopeOf(context);
	if (scope !== undefined) remember({ scope, eventIds, answered, taken: false, settled: false });
}

/** The hand-over made for exactly these events and not taken yet, if any. */
function ownHandOver(scope: string, eventIds: readonly string[]): HandOver | undefined {
	const handOver = carriers.get(scope + eventIds[0]);
	if (!handOver || handOver.taken || handOver.eventIds.length !== eventIds.length) return undefined;
	return eventIds.every((id) => carriers.get(scope + id) === handOver) ? handOver : undefined;
}

function warnStoreFailed(context: ExecutionGateContext, what: string, error: unknown): void {
	context.logger.warn(`Messaging Trigger ${what} n8n’s deduplication store`, {
		error: error instanceof Error ? error.message : String(error),
	});
}

/**
 * Records `eventIds` in n8n's store and answers those recorded before, once a later check found the new ones still
 * there. A store that fails records nothing here and every event passes: at worst a duplicate, never an event the
 * sender was told had arrived and that never ran.
 */
async function recordedBefore(
	context: ExecutionGateContext,
	scope: string,
	eventIds: string[],
	store: ProcessedValues,
): Promise<Set<string>> {
	if (eventIds.length === 0) return new Set();
	let before: Set<string>;
	try {
		before = await recordEvents(scope, eventIds, store);
	} catch (error) {
		warnStoreFailed(context, 'ran its events unchecked: it could not record them in', error);
		return new Set();
	}
	const failure = await foundOnce(
		scope,
		eventIds.filter((id) => !before.has(id)),
	);
	if (failure) warnStoreFailed(context, 'could not check again that its events stayed in', failure);
	return before;
}

/**
 * An execution of no hand-over here: the events no delivery here carries or is about to hand over (claimed, not yet
 * answered) and no execution recorded first, claimed so that their retries, should they come here, are duplicates.
 */
async function itemsCarriedNowhere(
	context: ExecutionGateContext,
	scope: string,
	items: INodeExecutionData[],
	eventIds: readonly string[],
	store: ProcessedValues,
): Promise<INodeExecutionData[]> {
	const memory = eventIdMemoryOf(workflowIdOf(context), context.getNode().id);
	const free = eventIds.flatMap((id, index) => {
		if (carriers.has(scope + id) || memory.confirmationOf(id) !== undefined) return [];
		memory.claim(id);
		return [index];
	});
	const recorded = await recordedBefore(
		context,
		scope,
		free.map((index) => eventIds[index]),
		store,
	);
	return free.filter((index) => !recorded.has(eventIds[index])).map((index) => items[index]);
}

/** The trigger's items once their delivery was answered: all of them after a 2xx, none after a refusal. */
export async function itemsOnceAnswered(
	context: ExecutionGateContext,
	items: INodeExecutionData[],
	store: ProcessedValues,
): Promise<INodeExecutionData[]> {
	const scope = scopeOf(context);
	const eventIds = items.map((item) => item.json.event_id);
	if (scope === undefined || items.length === 0) return items;
	if (!eventIds.every((id): id is string => typeof id === 'string')) return items;
	const handOver = ownHandOver(scope, eventIds);
	if (!handOver) return await itemsCarriedNowhere(context, scope, items, eventIds, store);
	handOver.taken = true;
	return (await handOver.answered) ? items : [];
}

/** Hand-overs whose execution has not taken them yet. */
export function heldExecutions(): number {
	let held = 0;
	for (const handOver of handOvers) if (!handOver.taken) held++;
	return held;
}
