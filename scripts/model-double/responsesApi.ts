import type { Conversation, ModelTurn, OfferedTool } from './conversation';

/** OpenAI's Responses API (`POST /v1/responses`), which n8n's OpenAI Chat Model 1.3 uses by default. */

type Item = Record<string, unknown>;

/** A message's content is a string or a list of parts (`input_text`, `output_text`, …) with `text`. */
export function textOf(content: unknown): string {
	if (typeof content === 'string') return content;
	if (!Array.isArray(content)) return '';
	return content
		.map((part) =>
			typeof (part as Item)?.text === 'string' ? ((part as Item).text as string) : '',
		)
		.join('');
}

function offeredTools(tools: unknown): OfferedTool[] {
	if (!Array.isArray(tools)) return [];
	return (tools as Item[])
		.filter((tool) => tool.type === 'function')
		.map((tool) => ({
			name: String(tool.name),
			description: String(tool.description ?? ''),
			parameters: (tool.parameters ?? {}) as Record<string, unknown>,
		}));
}

export function readResponsesRequest(body: Item): Conversation {
	const input: Item[] =
		typeof body.input === 'string'
			? [{ role: 'user', content: body.input }]
			: Array.isArray(body.input)
				? (body.input as Item[])
				: [];
	const conversation: Conversation = {
		system: typeof body.instructions === 'string' ? [body.instructions] : [],
		messages: [],
		toolResults: [],
		tools: offeredTools(body.tools),
	};
	for (const item of input) {
		const role = item.role;
		if (item.type === 'function_call_output') {
			conversation.toolResults.push({ callId: String(item.call_id), output: textOf(item.output) });
		} else if (role === 'system' || role === 'developer') {
			conversation.system.push(textOf(item.content));
		} else if (role === 'user') {
			conversation.messages.push({ role: 'user', text: textOf(item.content) });
			conversation.toolResults = [];
		} else if (role === 'assistant') {
			conversation.messages.push({ role: 'assistant', text: textOf(item.content) });
		}
	}
	return conversation;
}

export function responsesAnswer(
	turn: ModelTurn,
	ids: { response: string; item: string },
	model: unknown,
) {
	const output =
		turn.kind === 'toolCall'
			? {
					type: 'function_call',
					id: `fc_${ids.item}`,
					call_id: `call_${ids.item}`,
					name: turn.tool,
					arguments: JSON.stringify(turn.arguments),
					status: 'completed',
				}
			: {
					type: 'message',
					id: `msg_${ids.item}`,
					role: 'assistant',
					status: 'completed',
					content: [{ type: 'output_text', text: turn.text, annotations: [] }],
				};
	return {
		id: `resp_${ids.response}`,
		object: 'response',
		created_at: Math.floor(Date.now() / 1000),
		status: 'completed',
		model: typeof model === 'string' ? model : 'model-double',
		output: [output],
		incomplete_details: null,
		usage: {
			input_tokens: 0,
			input_tokens_details: { cached_tokens: 0 },
			output_tokens: 0,
			output_tokens_details: { reasoning_tokens: 0 },
			total_tokens: 0,
		},
	};
}
