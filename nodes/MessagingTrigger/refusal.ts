import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { Refusal } from './readVerifiedEvents';

/** The part of a Node/express response we write to, so a bare `http` response works in tests too. */
interface JsonResponseTarget {
	statusCode: number;
	setHeader(name: string, value: string | number): unknown;
	end(chunk: string): unknown;
}

export function respondWithJson(
	response: JsonResponseTarget,
	statusCode: number,
	body: object,
): void {
	const payload = JSON.stringify(body);
	response.statusCode = statusCode;
	response.setHeader('Content-Type', 'application/json; charset=utf-8');
	response.setHeader('Content-Length', Buffer.byteLength(payload));
	response.end(payload);
}

export function refuse(
	context: IWebhookFunctions,
	{ statusCode, code, message, field, retryAfterSeconds, quiet }: Refusal,
): IWebhookResponseData {
	(quiet ? context.logger.debug : context.logger.warn).call(
		context.logger,
		`Messaging Trigger refused a delivery with ${statusCode} ${code}: ${message}`,
		{
			node: context.getNode().name,
			workflowId: context.getWorkflow().id,
			statusCode,
			reason: code,
			...(field ? { field } : {}),
		},
	);
	const response = context.getResponseObject();
	if (retryAfterSeconds !== undefined) response.setHeader('Retry-After', retryAfterSeconds);
	respondWithJson(response, statusCode, {
		error: { code, message, ...(field ? { field } : {}) },
	});
	return { noWebhookResponse: true };
}
