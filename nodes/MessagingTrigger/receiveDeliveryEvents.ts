import {
	sleep,
	type IDataObject,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { readHeader } from '../shared/readHeader';
import { EventIdMemory, eventIdMemoryOf, type SavedEventIds } from './deduplication';
import { parseDeliveryEvents, type MessagingEvent } from './events';
import { outputItemOf } from './inboundMessages';
import { readSigningSecret } from './signingSecret';
import { eventFiltersOf, triageEvents } from './triage';
import {
	SIGNATURE_HEADER,
	TIMESTAMP_HEADER,
	verifySignature,
	type VerificationFailure,
} from './verification';

export const MAX_BODY_BYTES = 256 * 1024;
export const DEFAULT_TIMESTAMP_TOLERANCE_SECONDS = 300;

interface TriggerOptions {
	dropDuplicateEvents?: boolean;
	timestampToleranceSeconds?: number;
}

export interface DeliverySummary extends IDataObject {
	received: number;
	accepted: number;
	duplicates: number;
	filteredOut: number;
}

interface Refusal {
	statusCode: number;
	code: string;
	message: string;
	field?: string;
}

const VERIFICATION_MESSAGES: Record<VerificationFailure, string> = {
	missing_signature: 'The X-Messaging-Signature header is missing.',
	missing_timestamp: 'The X-Messaging-Timestamp header is missing.',
	malformed_signature:
		'The X-Messaging-Signature header must be "v1=" followed by 64 hex characters.',
	malformed_timestamp: 'The X-Messaging-Timestamp header must be a Unix time in seconds.',
	invalid_signature:
		'The signature does not match the body and timestamp; check that the trigger uses the account signing secret.',
	stale_timestamp:
		'The timestamp is outside the allowed tolerance, so the delivery is treated as a replay; check the sender clock.',
};

/**
 * n8n reads every non-multipart body into `rawBody` before the node runs. A multipart body has none,
 * which leaves an empty body: its signature cannot match, so it is refused like any unsigned one.
 */
function rawBodyOf(request: { rawBody?: unknown }): Buffer {
	const raw = request.rawBody;
	if (Buffer.isBuffer(raw)) return raw;
	if (typeof raw === 'string') return Buffer.from(raw, 'utf8');
	return Buffer.alloc(0);
}

/** Size, signature, timestamp and shape, in that order: nothing of an unsigned body is read. */
async function readVerifiedEvents(
	context: IWebhookFunctions,
	options: TriggerOptions,
): Promise<{ events: MessagingEvent[] } | { refusal: Refusal }> {
	const rawBody = rawBodyOf(context.getRequestObject());
	if (rawBody.length > MAX_BODY_BYTES) {
		const message = `The body is ${rawBody.length} bytes; the limit is ${MAX_BODY_BYTES} bytes. Send fewer events per delivery.`;
		return { refusal: { statusCode: 413, code: 'body_too_large', message } };
	}
	let secret = await readSigningSecret(context);
	if (!secret.signingSecret && secret.cached) secret = await readSigningSecret(context, true);
	if (!secret.signingSecret) {
		// 500 rather than 401: the sender is not at fault, and its retries keep the events until this is fixed.
		const message =
			'The Messaging Trigger credential has no signing secret. Paste the account signing secret into it.';
		return { refusal: { statusCode: 500, code: 'signing_secret_missing', message } };
	}
	const headers = context.getHeaderData();
	const verify = (signingSecret: string) =>
		verifySignature({
			signingSecret,
			signatureHeader: readHeader(headers, SIGNATURE_HEADER),
			timestampHeader: readHeader(headers, TIMESTAMP_HEADER),
			rawBody,
			nowSeconds: Math.floor(Date.now() / 1000),
			toleranceSeconds: options.timestampToleranceSeconds ?? DEFAULT_TIMESTAMP_TOLERANCE_SECONDS,
		});
	let verification = verify(secret.signingSecret);
	if (!verification.valid && verification.reason === 'invalid_signature' && secret.cached) {
		secret = await readSigningSecret(context, true);
		if (secret.signingSecret) verification = verify(secret.signingSecret);
	}
	if (!verification.valid) {
		const { reason } = verification;
		return { refusal: { statusCode: 401, code: reason, message: VERIFICATION_MESSAGES[reason] } };
	}
	const parsed = parseDeliveryEvents(rawBody);
	if ('invalid' in parsed) return { refusal: { statusCode: 400, ...parsed.invalid } };
	return parsed;
}

/** The part of a Node/express response we write to, so a bare `http` response works in tests too. */
interface JsonResponseTarget {
	statusCode: number;
	setHeader(name: string, value: string | number): unknown;
	end(chunk: string): unknown;
}

function respondWithJson(response: JsonResponseTarget, statusCode: number, body: object): void {
	const payload = JSON.stringify(body);
	response.statusCode = statusCode;
	response.setHeader('Content-Type', 'application/json; charset=utf-8');
	response.setHeader('Content-Length', Buffer.byteLength(payload));
	response.end(payload);
}

function refuse(
	context: IWebhookFunctions,
	{ statusCode, code, message, field }: Refusal,
): IWebhookResponseData {
	context.logger.warn(
		`Messaging Trigger refused a delivery with ${statusCode} ${code}: ${message}`,
		{
			node: context.getNode().name,
			workflowId: context.getWorkflow().id,
			statusCode,
			reason: code,
			...(field ? { field } : {}),
		},
	);
	respondWithJson(context.getResponseObject(), statusCode, {
		error: { code, message, ...(field ? { field } : {}) },
	});
	return { noWebhookResponse: true };
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
 * n8n answers an accepted delivery only after it has created the execution, and answers 500 when it could not:
 * then the sender retries, and the retry must not be taken for a duplicate of an event that never ran.
 */
function releaseClaimsUnlessAcknowledged(
	context: IWebhookFunctions,
	memory: EventIdMemory,
	eventIds: string[],
): void {
	const response = context.getResponseObject();
	response.once('finish', () => {
		if (response.statusCode < 200 || response.statusCode > 299)
			for (const id of eventIds) memory.release(id);
	});
}

/**
 * n8n 2.40 builds a second Workflow over the same static data object after the webhook answers and before it saves
 * (WorkflowRunner.establishContextForPersistence), and that resets the changed flag this write set, so n8n would
 * never save it. Writing the stamp again a moment later, once n8n has done so but is still creating the execution,
 * sets the flag again. The first write stays: it is what this process's later requests read.
 */
function saveEventIds(
	nodeStaticData: IDataObject,
	save: { recentEventIds: string[]; recentEventIdsStamp: string },
): void {
	Object.assign(nodeStaticData, save);
	void sleep(0).then(() => {
		nodeStaticData.recentEventIdsStamp = save.recentEventIdsStamp;
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
		releaseClaimsUnlessAcknowledged(
			this,
			memory,
			accepted.map((event) => event.event_id),
		);
		const save = memory.takeSave();
		if (save) saveEventIds(this.getWorkflowStaticData('node'), save);
	}
	return {
		webhookResponse: summary,
		workflowData: [accepted.map((event) => ({ json: outputItemOf(event) }))],
	};
}
