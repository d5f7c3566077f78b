import type { Conversation, ModelTurn, OfferedTool } from './conversation';
import { textOf } from './responsesApi';

/** OpenAI's Chat Completions API (`POST /v1/chat/completions`): the OpenAI Chat Model with Responses API off. */

type Item = Record<string, unknown>;

function offeredTools(tools: unknown): OfferedTool[] {
	if (!Array.isArray(tools)) return [];
	return (tools as Item[])
		.filter((tool) => tool.type === 'function')
		.map((tool) => {
			const fn = (tool.function ?? {}) as Item;
			return {
				name: String(fn.name),
				description: String(fn.description ?? ''),
				parameters: (fn.parameters ?? {}) as Record<string, unknown>,
			};
		});
}

export function readChatRequest(body: Item): Conversation {
	const conversation: Conversation = {
		system: [],
		messages: [],
		toolResults: [],
		tools: offeredTools(body.tools),
	};
	for (const message of Array.isArray(body.messages) ? (body.messages as Item[]) : []) {
		const text = textOf(message.content);
		if (message.role === 'tool') {
			conversation.toolResults.push({ callId: String(message.tool_call_id), output: text });
		} else if (message.role === 'system' || message.role === 'developer') {
			conversation.system.push(text);
		} else if (message.role === 'user') {
			conversation.messages.push({ role: 'user', text });
			conversation.toolResults = [];
		} else if (message.role === 'assistant') {
			conversation.messages.push({ role: 'assistant', text });
		}
	}
	return conversation;
}

export function chatAnswer(
	turn: ModelTurn,
	ids: { response: string; item: string },
	model: unknown,
) {
	const message =
		turn.kind === 'toolCall'
			? {
					role: 'assistant',
					content: null,
					tool_calls: [
						{
							id: `call_${ids.item}`,
							type: 'function',
							function: { name: turn.tool, arguments: JSON.stringify(turn.arguments) },
						},
					],
				}
			: { role: 'assistant', content: turn.text };
	return {
		id: `chatcmpl_${ids.response}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model: typeof model === 'string' ? model : 'model-double',
		choices: [
			{
				index: 0,
				message,
				finish_reason: turn.kind === 'toolCall' ? 'tool_calls' : 'stop',
				logprobs: null,
			},
		],
		usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
	};
}
