import type { IHttpRequestOptions } from 'n8n-workflow';

import type { MessagingEndpoint } from './endpoint';
import { answeredFailure, describeFailure, thrownFailure, type SendFailure } from './failures';
import type { MessagingRequest } from './messagingRequest';
import { requestOptions, type FullResponse } from './sendMessagingRequest';

/** Sends one request with whatever HTTP helper the caller's n8n context offers, the credential applied. */
export type PerformRequest = (options: IHttpRequestOptions) => Promise<FullResponse>;

export type ProbeResult = { accepted: true } | { accepted: false; message: string };

const EMPTY_SMS: MessagingRequest = { path: '/v1/sms/send', fields: {} };
const PROBE_TIMEOUT_MS = 15_000;
/** The API checked the key first and then refused the empty body, so the key is good. */
const BODY_REFUSED = new Set([400, 422]);

function refused({ facts }: SendFailure, apiKey: string | undefined): ProbeResult {
	const { message, whatToDo } = describeFailure(facts, {
		timeoutMs: PROBE_TIMEOUT_MS,
		apiKey,
		probe: true,
	});
	return { accepted: false, message: `${message.replace(/\.$/, '')}. ${whatToDo}` };
}

/**
 * No read endpoint exists, so an empty SMS send proves the key without sending anything: 401/403 reject the key,
 * 400/422 refuse only the body. Any other answer gets the same masked, advised words as a failed send.
 */
export async function probeApiKey(
	endpoint: MessagingEndpoint,
	perform: PerformRequest,
): Promise<ProbeResult> {
	const options = requestOptions(endpoint, EMPTY_SMS, {
		bodyEncoding: 'json',
		timeoutMs: PROBE_TIMEOUT_MS,
	});
	let response: FullResponse;
	try {
		response = await perform(options);
	} catch (error) {
		return refused(thrownFailure(error, endpoint.apiKey), endpoint.apiKey);
	}
	const { statusCode, headers, body } = response;
	if ((statusCode >= 200 && statusCode < 300) || BODY_REFUSED.has(statusCode))
		return { accepted: true };
	return refused(answeredFailure(statusCode, headers, body, endpoint.apiKey), endpoint.apiKey);
}
