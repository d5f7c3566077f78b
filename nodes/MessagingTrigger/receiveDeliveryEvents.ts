import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { RecentEventIds } from './deduplication';
import { parseDeliveryEvents } from './events';
import { readHeader, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './headers';
import { respondWithJson } from './respond';
import { triageEvents } from './triage';
import { verifySignature, type VerificationFailure } from './verification';

export const MAX_BODY_BYTES = 256 * 1024;
export const DEFAULT_TIMESTAMP_TOLERANCE_SECONDS = 300;
export const RECENT_EVENT_IDS_KEY = 'recentEventIds';
export const SIGNING_SECRET_CREDENTIAL = 'messagingWebhookApi';

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

const VERIFICATION_MESSAGES: Record<VerificationFailure, string> = {
	missing_signature: 'The X-Messaging-Signature header is missing.',
	missing_timestamp: 'The X-Messaging-Timestamp header is missing.',
	malformed_signature: 'The X-Messaging-Signature header must be "v1=" followed by 64 hex characters.',
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

function refuse(
	context: IWebhookFunctions,
	statusCode: number,
	code: string,
	message: string,
	field?: string,
): IWebhookResponseData {
	context.logger.warn(`Messaging Trigger refused a delivery with ${statusCode} ${code}: ${message}`, {
		node: context.getNode().name,
		workflowId: context.getWorkflow().id,
		statusCode,
		reason: code,
		...(field ? { field } : {}),
	});
	respondWithJson(context.getResponseObject(), statusCode, {
		error: { code, message, ...(field ? { field } : {}) },
	});
	return { noWebhookResponse: true };
}

export async function receiveDeliveryEvents(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const rawBody = rawBodyOf(this.getRequestObject());
	if (rawBody.length > MAX_BODY_BYTES) {
		return refuse(
			this,
			413,
			'body_too_large',
			`The body is ${rawBody.length} bytes; the limit is ${MAX_BODY_BYTES} bytes. Send fewer events per delivery.`,
		);
	}

	const { signingSecret } = await this.getCredentials<{ signingSecret?: string }>(
		SIGNING_SECRET_CREDENTIAL,
	);
	if (!signingSecret) {
		// 500 rather than 401: the sender is not at fault, and its retries keep the events until this is fixed.
		return refuse(
			this,
			500,
			'signing_secret_missing',
			'The Messaging Trigger credential has no signing secret. Paste the account signing secret into it.',
		);
	}

	const options = this.getNodeParameter('options', {}) as TriggerOptions;
	const headers = this.getHeaderData();
	const verification = verifySignature({
		signingSecret,
		signatureHeader: readHeader(headers, SIGNATURE_HEADER),
		timestampHeader: readHeader(headers, TIMESTAMP_HEADER),
		rawBody,
		nowSeconds: Math.floor(Date.now() / 1000),
		toleranceSeconds: options.timestampToleranceSeconds ?? DEFAULT_TIMESTAMP_TOLERANCE_SECONDS,
	});
	if (!verification.valid) {
		return refuse(this, 401, verification.reason, VERIFICATION_MESSAGES[verification.reason]);
	}

	const parsed = parseDeliveryEvents(rawBody);
	if ('invalid' in parsed) {
		return refuse(this, 400, parsed.invalid.code, parsed.invalid.message, parsed.invalid.field);
	}

	const filters = {
		channels: this.getNodeParameter('channels', []) as string[],
		statuses: this.getNodeParameter('statuses', []) as string[],
	};
	const dropDuplicates = options.dropDuplicateEvents ?? true;
	const staticData = this.getWorkflowStaticData('node');
	const recentEventIds = dropDuplicates
		? new RecentEventIds(staticData[RECENT_EVENT_IDS_KEY])
		: undefined;
	const { accepted, duplicates, filteredOut } = triageEvents(parsed.events, filters, recentEventIds);
	if (recentEventIds && accepted.length > 0) {
		staticData[RECENT_EVENT_IDS_KEY] = recentEventIds.toJSON();
	}

	const summary: DeliverySummary = {
		received: parsed.events.length,
		accepted: accepted.length,
		duplicates,
		filteredOut,
	};
	// Answer here, before n8n starts the execution: n8n 2.40 saves the static data (the remembered
	// event ids) only for a webhook answered before the run, so answering after it would forget them.
	respondWithJson(this.getResponseObject(), 200, summary);
	if (accepted.length === 0) {
		this.logger.debug('Messaging Trigger acknowledged a delivery without starting the workflow', {
			node: this.getNode().name,
			...summary,
		});
		return { noWebhookResponse: true };
	}
	return {
		noWebhookResponse: true,
		workflowData: [accepted.map((event) => ({ json: event }))],
	};
}
