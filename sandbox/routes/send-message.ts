import type { IncomingHttpHeaders } from 'node:http';
import { authenticate } from '../auth';
import { ApiError } from '../http/api-error';
import { jsonAnswer, type HttpAnswer } from '../http/respond';
import type { SandboxContext } from '../sandbox-context';
import { requestFingerprint } from '../throughput/idempotency-store';
import type { Acknowledgement, Channel } from '../types';
import { validateSmsRequest } from '../validation/sms-request';
import { validateWhatsAppRequest } from '../validation/whatsapp-request';

export const SEND_PATHS: Record<string, Channel> = {
	'/v1/sms/send': 'sms',
	'/v1/whatsapp/send': 'whatsapp',
};

export type ParsedFields = { fields: Record<string, unknown> } | { error: ApiError };

export interface SendRequest {
	method: string;
	path: string;
	headers: IncomingHttpHeaders;
	bodyTooLarge: boolean;
	parsed: ParsedFields;
}

export interface SendOutcome {
	answer: HttpAnswer;
	acceptedMessageId: string | null;
}

/** Checks in the order a careful provider would: route, auth, rate, body, idempotency, content; then accepts. */
export function sendMessage(context: SandboxContext, request: SendRequest): SendOutcome {
	const budgetHeaders: Record<string, string> = {};
	try {
		const { acknowledgement, acceptedMessageId } = accept(context, request, budgetHeaders);
		const replayHeader: Record<string, string> =
			acceptedMessageId === null ? { 'Idempotent-Replayed': 'true' } : {};
		return {
			answer: jsonAnswer(200, acknowledgement, { ...budgetHeaders, ...replayHeader }),
			acceptedMessageId,
		};
	} catch (error) {
		if (!(error instanceof ApiError)) throw error;
		return {
			answer: jsonAnswer(error.status, error.toBody(), { ...budgetHeaders, ...error.headers }),
			acceptedMessageId: null,
		};
	}
}

/**
 * acceptedMessageId is null when an idempotent retry replays an earlier acknowledgement. budgetHeaders is filled
 * once the key's rate was counted, so the answers refused after that (400, 422) carry it too.
 */
function accept(
	context: SandboxContext,
	request: SendRequest,
	budgetHeaders: Record<string, string>,
): { acknowledgement: Acknowledgement; acceptedMessageId: string | null } {
	const channel = SEND_PATHS[request.path];
	if (channel === undefined) {
		throw new ApiError(
			404,
			'not_found',
			`No endpoint at ${request.path}. Use /v1/sms/send or /v1/whatsapp/send.`,
		);
	}
	if (request.method !== 'POST') {
		throw new ApiError(405, 'method_not_allowed', `${request.path} accepts POST only.`, undefined, {
			Allow: 'POST',
		});
	}
	const apiKey = authenticate(request.headers, context.apiKeys);
	Object.assign(budgetHeaders, context.rateLimiter.admit(apiKey));
	if (request.bodyTooLarge) {
		throw new ApiError(
			413,
			'body_too_large',
			`The body is larger than ${context.bodyLimitBytes} bytes.`,
		);
	}
	if ('error' in request.parsed) throw request.parsed.error;
	const { fields } = request.parsed;

	const idempotencyKey =
		context.idempotencyKeys === 'honour' ? headerValue(request.headers['idempotency-key']) : null;
	const fingerprint = requestFingerprint(request.path, fields);
	if (idempotencyKey !== null) {
		const replayed = context.idempotency.replay(apiKey, idempotencyKey, fingerprint);
		if (replayed) return { acknowledgement: replayed, acceptedMessageId: null };
	}

	const valid =
		channel === 'sms'
			? validateSmsRequest(fields, context.templates)
			: {
					...validateWhatsAppRequest(fields, context.templates, context.sessions),
					callbackUrl: null,
				};
	const record = context.messages.accept({
		channel,
		to: valid.to,
		fields,
		callbackUrl: valid.callbackUrl,
		idempotencyKey,
	});
	if (idempotencyKey !== null)
		context.idempotency.remember(apiKey, idempotencyKey, fingerprint, record.acknowledgement);
	context.lifecycle.start(record);
	return { acknowledgement: record.acknowledgement, acceptedMessageId: record.id };
}

function headerValue(value: string | string[] | undefined): string | null {
	const single = Array.isArray(value) ? value[0] : value;
	return single === undefined || single.trim() === '' ? null : single.trim();
}
