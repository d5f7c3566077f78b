import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../http/api-error';
import { parseFields } from '../http/parse-fields';
import { readBody } from '../http/read-body';
import { flattenHeaders, writeAnswer } from '../http/respond';
import { latencyDelayMs, type SandboxContext } from '../sandbox-context';
import type { RecordedRequest } from '../types';
import { sendMessage, type ParsedFields } from './send-message';

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

	const body = await readBody(request, context.bodyLimitBytes);
	record.rawBody = body.text;
	const parsed = tryParseFields(request.headers['content-type'], body.tooLarge ? '' : body.text);
	if ('fields' in parsed) record.fields = parsed.fields;

	const latencyMs = latencyDelayMs(context.latency);
	if (latencyMs > 0) await context.timers.wait(latencyMs);
	const outcome = sendMessage(context, {
		method,
		path,
		headers: request.headers,
		bodyTooLarge: body.tooLarge,
		parsed,
	});
	record.response = { status: outcome.answer.status, body: outcome.answer.recordedBody };
	writeAnswer(response, outcome.answer);
}

function tryParseFields(contentType: string | undefined, rawBody: string): ParsedFields {
	try {
		return { fields: parseFields(contentType, rawBody) };
	} catch (error) {
		if (error instanceof ApiError) return { error };
		throw error;
	}
}
