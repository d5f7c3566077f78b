import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../http/api-error';
import { readBody } from '../http/read-body';
import { jsonAnswer, writeAnswer, type HttpAnswer } from '../http/respond';
import type { InboundSimulation, Sandbox } from '../types';

export const ADMIN_PREFIX = '/__admin';

export type AdminOperations = Omit<Sandbox, 'url' | 'port' | 'apiKey' | 'signingSecret' | 'close'>;

type AdminHandler = (body: Record<string, unknown>) => HttpAnswer;

/** The programmatic API over HTTP, for scripts and the real-n8n end-to-end suite. No auth: loopback only. */
export async function handleAdminRequest(
	sandbox: AdminOperations,
	request: IncomingMessage,
	response: ServerResponse,
	path: string,
): Promise<void> {
	const body = await readBody(request);
	let answer: HttpAnswer;
	try {
		const handler =
			adminRoutes(sandbox)[`${request.method ?? 'GET'} ${path.slice(ADMIN_PREFIX.length)}`];
		if (!handler)
			throw new ApiError(
				404,
				'not_found',
				`No admin endpoint ${request.method} ${path}. See sandbox/README.md.`,
			);
		answer = handler(parseAdminBody(body.text));
	} catch (error) {
		if (error instanceof ApiError) answer = jsonAnswer(error.status, error.toBody());
		else if (error instanceof Error)
			answer = jsonAnswer(400, new ApiError(400, 'invalid_field', error.message).toBody());
		else throw error;
	}
	writeAnswer(response, answer);
}

function adminRoutes(sandbox: AdminOperations): Record<string, AdminHandler> {
	const noContent = (): HttpAnswer => ({ status: 204, headers: {}, text: '', recordedBody: null });
	return {
		'GET /health': () =>
			jsonAnswer(200, { status: 'ok', now: new Date(sandbox.clock.now()).toISOString() }),
		'GET /requests': () => jsonAnswer(200, sandbox.requests()),
		'DELETE /requests': () => {
			sandbox.clearRequests();
			return noContent();
		},
		'GET /messages': () => jsonAnswer(200, sandbox.messages()),
		'DELETE /messages': () => {
			sandbox.clearMessages();
			return noContent();
		},
		'POST /inbound': (body) => {
			const event = sandbox.simulateInbound(body as InboundSimulation);
			return jsonAnswer(200, { from: event.from, event });
		},
		'POST /clock/advance': (body) => {
			if (typeof body.ms !== 'number' || !(body.ms >= 0))
				throw new Error("'ms' must be a number of milliseconds, 0 or more");
			sandbox.clock.advance(body.ms);
			return jsonAnswer(200, { now: new Date(sandbox.clock.now()).toISOString() });
		},
		'PUT /webhook': (body) => {
			if (body.url !== null && typeof body.url !== 'string')
				throw new Error("'url' must be an absolute http(s) URL or null");
			sandbox.setWebhookUrl(body.url);
			return jsonAnswer(200, { url: body.url });
		},
		'PUT /config': (body) => {
			sandbox.configure(body);
			return noContent();
		},
		'POST /faults': (body) => jsonAnswer(201, { id: sandbox.addFault(body as never) }),
		'GET /faults': () => jsonAnswer(200, sandbox.faults()),
		'DELETE /faults': () => {
			sandbox.clearFaults();
			return noContent();
		},
		'GET /webhook-deliveries': () => jsonAnswer(200, sandbox.webhookDeliveries()),
		'GET /webhook-summary': () => jsonAnswer(200, sandbox.webhookSummary()),
		'POST /campaign': (body) => jsonAnswer(201, sandbox.startCampaign(body as never)),
	};
}

function parseAdminBody(text: string): Record<string, unknown> {
	if (text.trim() === '') return {};
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch {
		throw new ApiError(400, 'invalid_body', 'Admin requests take a JSON object body.');
	}
	if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
		throw new ApiError(400, 'invalid_body', 'Admin requests take a JSON object body.');
	}
	return parsed as Record<string, unknown>;
}
