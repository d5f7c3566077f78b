import type { IncomingMessage, ServerResponse } from 'node:http';
import { faultAnswer, isSuccessStatus } from '../faults/fault-answers';
import { ApiError } from '../http/api-error';
import { parseFields } from '../http/parse-fields';
import { readBody } from '../http/read-body';
import { flattenHeaders, writeAnswer, type HttpAnswer } from '../http/respond';
import { latencyDelayMs, type SandboxContext } from '../sandbox-context';
import type { Acknowledgement, FaultAction, RecordedRequest } from '../types';
import { sendMessage, type ParsedFields, type SendOutcome } from './send-message';

/** One API request from arrival to answer; recorded on arrival so the log keeps arrival order. */
export async function handleApiRequest(
	context: SandboxContext,
	request: IncomingMessage,
	response: ServerResponse,
	path: string,
): Promise<void> {
	const method = request.method ?? 'GET';
	const record: RecordedRequest = {
		method,
		path,
		headers: flattenHeaders(request.headers),
		contentType: request.headers['content-type'] ?? '',
		rawBody: '',
		fields: {},
		receivedAt: context.clock.now(),
		response: { status: 0, body: null },
	};
	context.requestLog.add(record);

	if (context.faults.takeBeforeBody(path)) {
		record.response = { status: 0, body: 'connection reset before the body was read (fault rule)' };
		resetConnection(request);
		return;
	}

	const body = await readBody(request, context.bodyLimitBytes);
	record.rawBody = body.text;
	const parsed = tryParseFields(request.headers['content-type'], body.tooLarge ? '' : body.text);
	if ('fields' in parsed) record.fields = parsed.fields;

	const latencyMs = latencyDelayMs(context.latency);
	if (latencyMs > 0) await context.timers.wait(latencyMs);

	const fault = context.faults.takeAfterBody(path, record.fields.to);
	const action = fault?.rule.action;
	if (action && 'status' in action && !isSuccessStatus(action.status)) {
		// The provider failed before it looked at the message: nothing is accepted.
		answer(record, response, faultAnswer(action, null));
		return;
	}

	const outcome = sendMessage(context, {
		method,
		path,
		headers: request.headers,
		bodyTooLarge: body.tooLarge,
		parsed,
	});
	if (!action) {
		answer(record, response, outcome.answer);
		return;
	}
	await answerUnderFault(context, request, response, record, outcome, action);
}

/**
 * Faults that strike after the provider accepted the message: the message stays accepted (and is
 * marked so) although the client never sees a usable acknowledgement. A refused request keeps its
 * real error answer: a provider cannot acknowledge what it refused.
 */
async function answerUnderFault(
	context: SandboxContext,
	request: IncomingMessage,
	response: ServerResponse,
	record: RecordedRequest,
	outcome: SendOutcome,
	action: FaultAction,
): Promise<void> {
	const acceptedId = outcome.acceptedMessageId;
	if ('reset' in action) {
		if (acceptedId) context.messages.markAcceptedUnderFault(acceptedId, 'reset-after-body');
		record.response = { status: 0, body: 'connection reset after the body was read (fault rule)' };
		resetConnection(request);
		return;
	}
	if ('delayMs' in action) {
		if (acceptedId) context.messages.markAcceptedUnderFault(acceptedId, 'delay');
		record.response = { status: outcome.answer.status, body: outcome.answer.recordedBody };
		await context.timers.wait(action.delayMs);
		writeAnswer(response, outcome.answer);
		return;
	}
	if (!isSuccessStatus(outcome.answer.status)) {
		answer(record, response, outcome.answer);
		return;
	}
	if (acceptedId) {
		const kind =
			action.bodyKind === 'not-json' || action.bodyKind === 'ack-without-id'
				? action.bodyKind
				: 'status';
		context.messages.markAcceptedUnderFault(acceptedId, kind);
	}
	answer(record, response, faultAnswer(action, outcome.answer.recordedBody as Acknowledgement));
}

function answer(record: RecordedRequest, response: ServerResponse, httpAnswer: HttpAnswer): void {
	record.response = { status: httpAnswer.status, body: httpAnswer.recordedBody };
	writeAnswer(response, httpAnswer);
}

/** A TCP reset, not a clean close: what a crashed proxy or a dropped connection looks like to the client. */
function resetConnection(request: IncomingMessage): void {
	request.socket.resetAndDestroy();
}

function tryParseFields(contentType: string | undefined, rawBody: string): ParsedFields {
	try {
		return { fields: parseFields(contentType, rawBody) };
	} catch (error) {
		if (error instanceof ApiError) return { error };
		throw error;
	}
}
