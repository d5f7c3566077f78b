import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { chatAnswer, readChatRequest } from './chatCompletions';
import { decideTurn, type Conversation, type Script } from './conversation';
import { readResponsesRequest, responsesAnswer } from './responsesApi';

/**
 * A local stand-in for an OpenAI-compatible model, for checks that run n8n's AI Agent with no internet: it
 * speaks the Responses API and Chat Completions, plays the script a check set (which tool to call with which
 * arguments, then the final answer), and records every request so a check can read what n8n told the model.
 * A dev tool like the sandbox: never part of the package.
 */

export interface RecordedModelRequest {
	path: string;
	body: Record<string, unknown>;
	/** The conversation as the double read it: tools offered, messages, tool results of this turn. */
	conversation?: Conversation;
	status: number;
	answer: unknown;
}

export interface ModelDouble {
	baseUrl: string;
	/** What the OpenAI credential's Base URL must be. */
	openAiBaseUrl: string;
	stop(): Promise<void>;
}

const MODELS = {
	object: 'list',
	data: [{ id: 'model-double', object: 'model', owned_by: 'n8n-nodes-messaging' }],
};

interface DoubleState {
	script?: Script;
	requests: RecordedModelRequest[];
	answered: number;
}

function readBody(request: http.IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		request.on('error', reject);
	});
}

function send(response: http.ServerResponse, status: number, body: unknown): void {
	response.writeHead(status, { 'content-type': 'application/json' });
	response.end(JSON.stringify(body));
}

function openAiError(message: string) {
	return { error: { message, type: 'invalid_request_error', code: 'model_double_script' } };
}

function answerModelRequest(state: DoubleState, path: string, body: Record<string, unknown>) {
	const chat = path === '/v1/chat/completions';
	if (body.stream === true) {
		return {
			status: 400,
			answer: openAiError('The model double does not stream; turn streaming off in the AI Agent.'),
		};
	}
	const conversation = chat ? readChatRequest(body) : readResponsesRequest(body);
	state.answered += 1;
	const ids = { response: String(state.answered), item: String(state.answered) };
	try {
		const turn = decideTurn(conversation, state.script);
		const answer = chat
			? chatAnswer(turn, ids, body.model)
			: responsesAnswer(turn, ids, body.model);
		return { status: 200, answer, conversation };
	} catch (error) {
		return { status: 400, answer: openAiError((error as Error).message), conversation };
	}
}

async function handle(
	state: DoubleState,
	request: http.IncomingMessage,
	response: http.ServerResponse,
): Promise<void> {
	const path = new URL(request.url ?? '/', 'http://double').pathname;
	const text = await readBody(request);
	const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
	const route = `${request.method} ${path}`;
	if (route === 'GET /__admin/health') return send(response, 200, { ok: true });
	if (route === 'GET /__admin/requests') return send(response, 200, { requests: state.requests });
	if (route === 'DELETE /__admin/requests') {
		state.requests = [];
		return send(response, 200, { ok: true });
	}
	if (route === 'PUT /__admin/script') {
		state.script = body as unknown as Script;
		return send(response, 200, { ok: true });
	}
	if (route === 'DELETE /__admin/script') {
		state.script = undefined;
		return send(response, 200, { ok: true });
	}
	if (route === 'GET /v1/models') return send(response, 200, MODELS);
	if (route === 'POST /v1/responses' || route === 'POST /v1/chat/completions') {
		const { status, answer, conversation } = answerModelRequest(state, path, body);
		state.requests.push({ path, body, conversation, status, answer });
		return send(response, status, answer);
	}
	send(response, 404, openAiError(`The model double has no route ${route}`));
}

export async function startModelDouble(port = 0, host = '127.0.0.1'): Promise<ModelDouble> {
	const state: DoubleState = { requests: [], answered: 0 };
	const server = http.createServer((request, response) => {
		handle(state, request, response).catch((error: Error) =>
			send(response, 500, openAiError(error.message)),
		);
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => resolve());
	});
	const baseUrl = `http://${host}:${(server.address() as AddressInfo).port}`;
	return {
		baseUrl,
		openAiBaseUrl: `${baseUrl}/v1`,
		stop: () => new Promise((resolve) => server.close(() => resolve())),
	};
}
