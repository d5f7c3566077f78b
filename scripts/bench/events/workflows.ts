import { randomUUID } from 'node:crypto';

import { SIGNING_SECRET_CREDENTIAL } from '../../lib/credentials';
import { MESSAGING_TRIGGER_NODE_TYPE } from '../../lib/examples';
import type { N8nRestClient } from '../../n8n/rest-client';
import type { EventRecorder } from '../../../test/e2e/event-recorder';

/** The trigger's current version: the bench measures what a trigger created today gets. */
export const TRIGGER_TYPE_VERSION = 2;
const FLOOR_TRIGGER_NODE_TYPE = 'n8n-nodes-bare-trigger-yardstick.floorTrigger';
const BARE_TRIGGER_NODE_TYPE = 'n8n-nodes-bare-trigger-yardstick.bareTrigger';

/**
 * What receives the events: the trigger batching (its defaults) or not, n8n's Webhook node, the floor, and a bare
 * community trigger (it passes the body on, one execution per delivery: what n8n gives any community trigger).
 * `batchingLean` is the batching trigger alone, as the floor is: its rate against the floor is the trigger's own cost.
 */
export type EntryKind = 'batching' | 'batchingLean' | 'perEvent' | 'webhook' | 'floor' | 'bare';

export interface EventTarget {
	kind: EntryKind;
	url: string;
	workflowId: string;
	/** Where the workflow's recorder posts: the recorder counts runs per event and executions by this name. */
	source: string;
	/**
	 * For a workflow with no recorder node: the entry node whose output n8n stored is the execution's events. The
	 * bench reads them back from n8n's executions (recordStoredRuns).
	 */
	runsStoredBy?: string;
}

interface Entry {
	node: Record<string, unknown>;
	url: (baseUrl: string) => string;
	/** Where an item of the entry node holds the event: `json`, or `json.body` for the Webhook node. */
	eventPath: string;
}

function entryFor(kind: EntryKind): Entry {
	const webhookId = randomUUID();
	const common = { id: randomUUID(), position: [0, 0], webhookId };
	if (kind === 'webhook')
		return {
			node: {
				...common,
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				parameters: {
					httpMethod: 'POST',
					path: webhookId,
					responseMode: 'onReceived',
					options: {},
				},
			},
			url: (baseUrl) => `${baseUrl}/webhook/${webhookId}`,
			eventPath: 'json.body',
		};
	if (kind === 'bare')
		return {
			node: { ...common, name: 'Bare Trigger', type: BARE_TRIGGER_NODE_TYPE, typeVersion: 2 },
			url: (baseUrl) => `${baseUrl}/webhook/${webhookId}/events`,
			eventPath: 'json',
		};
	if (kind === 'floor')
		return {
			node: { ...common, name: 'Floor Trigger', type: FLOOR_TRIGGER_NODE_TYPE, typeVersion: 2 },
			url: (baseUrl) => `${baseUrl}/webhook/${webhookId}/events`,
			eventPath: 'json',
		};
	return {
		node: {
			...common,
			name: 'Messaging Trigger',
			type: MESSAGING_TRIGGER_NODE_TYPE,
			typeVersion: TRIGGER_TYPE_VERSION,
			parameters: kind === 'perEvent' ? { batchWaitMs: 0 } : {},
			credentials: { messagingWebhookApi: SIGNING_SECRET_CREDENTIAL },
		},
		url: (baseUrl) => `${baseUrl}/webhook/${webhookId}/messaging-events`,
		eventPath: 'json',
	};
}

/** A node with one expression per item, as a user's workflow has downstream of the trigger. */
function labelNode(eventPath: string) {
	return {
		id: randomUUID(),
		name: 'Label the status',
		type: 'n8n-nodes-base.set',
		typeVersion: 3.4,
		position: [220, 0],
		parameters: {
			mode: 'manual',
			includeOtherFields: true,
			assignments: {
				assignments: [
					{
						id: randomUUID(),
						name: 'status_label',
						type: 'string',
						value: `={{ $${eventPath}.status.toUpperCase() }}`,
					},
				],
			},
			options: {},
		},
	};
}

/** Runs once per execution and posts every item's event id: the recorder counts runs and executions from it. */
function recorderNode(recorderUrl: string, eventPath: string) {
	return {
		id: randomUUID(),
		name: 'Record the events',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [440, 0],
		executeOnce: true,
		parameters: {
			method: 'POST',
			url: recorderUrl,
			sendBody: true,
			specifyBody: 'json',
			jsonBody: `={{ JSON.stringify({ event_ids: $input.all().map((item) => item.${eventPath}.event_id) }) }}`,
			options: {},
		},
	};
}

/**
 * The nodes after the entry, in order: none for the floor, nor for the lean trigger. A recorder there would cost n8n
 * an expression isolate per execution under lazy acquire (its one expression; ~85 ms of CPU on this machine),
 * which is n8n's price for any expression downstream, not the trigger's: its runs are read from n8n instead.
 */
function downstreamOf(kind: EntryKind, eventPath: string, recorderUrl: string) {
	if (kind === 'floor' || kind === 'batchingLean') return [];
	return [labelNode(eventPath), recorderNode(recorderUrl, eventPath)];
}

/** Saves and activates the workflow for one entry: the entry, then its downstream nodes in a chain. */
export async function createEventTarget(
	rest: N8nRestClient,
	recorder: EventRecorder,
	kind: EntryKind,
	label: string,
): Promise<EventTarget> {
	const entry = entryFor(kind);
	const source = `${kind}-${randomUUID().slice(0, 8)}`;
	const entryName = entry.node.name as string;
	const downstream = downstreamOf(kind, entry.eventPath, recorder.urlFor(source));
	const link = (from: string, to: string) => ({
		[from]: { main: [[{ node: to, type: 'main', index: 0 }]] },
	});
	const workflowId = await rest.createActiveWorkflow({
		name: `Events bench: ${label}`,
		nodes: [entry.node, ...downstream],
		connections: Object.assign(
			{},
			...downstream.map((node, index) =>
				link(index === 0 ? entryName : downstream[index - 1].name, node.name),
			),
		),
		settings: { executionOrder: 'v1' },
	});
	const runsStoredBy = kind === 'batchingLean' ? entryName : undefined;
	return { kind, url: entry.url(rest.baseUrl), workflowId, source, runsStoredBy };
}
