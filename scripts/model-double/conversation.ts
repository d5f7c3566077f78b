/**
 * What the model double reads from a request, whichever OpenAI API carried it, and how it decides its turn.
 * An agent's run is a series of stateless requests, each with the whole conversation so far; the double
 * counts the tool results after the last user message to know which step of its script comes next.
 */

export interface OfferedTool {
	name: string;
	description: string;
	/** JSON Schema of the arguments, as n8n built it from the tool's `$fromAI()` fields. */
	parameters: Record<string, unknown>;
}

export interface ToolResult {
	callId: string;
	output: string;
}

export interface Conversation {
	system: string[];
	/** User and assistant texts in order, the current user message last among the user ones. */
	messages: Array<{ role: 'user' | 'assistant'; text: string }>;
	/** Results of the tools called since the last user message, oldest first. */
	toolResults: ToolResult[];
	tools: OfferedTool[];
}

/** One tool call the double makes: the tool by the name n8n gave it, with the arguments a test chose. */
export interface ScriptedCall {
	tool: string;
	arguments: Record<string, unknown>;
}

/**
 * A scripted turn: the calls, made one per model request while earlier ones have answered, then the final answer.
 * Without `answer` the final answer repeats the tool results, so a test sees what reached the model.
 */
export interface Script {
	calls: ScriptedCall[];
	answer?: string;
}

export type ModelTurn =
	| { kind: 'toolCall'; tool: string; arguments: Record<string, unknown> }
	| { kind: 'answer'; text: string };

export function userMessages(conversation: Conversation): string[] {
	return conversation.messages.filter((message) => message.role === 'user').map((m) => m.text);
}

/**
 * Without a script the double is an echo assistant: it answers the last user message and names the earlier
 * ones it was given, so a check can see that an agent's memory reached the model.
 */
function echoAnswer(conversation: Conversation): string {
	const written = userMessages(conversation);
	const last = written.at(-1) ?? '';
	const earlier = written.slice(0, -1);
	const memory = earlier.length
		? ` Earlier you wrote: ${earlier.map((text) => `"${text}"`).join(', ')}.`
		: '';
	return `Thanks for your message: "${last}".${memory}`;
}

function resultsAnswer(results: ToolResult[]): string {
	return `Tool results: ${results.map((result) => result.output).join(' | ')}`;
}

export function decideTurn(conversation: Conversation, script: Script | undefined): ModelTurn {
	const step = conversation.toolResults.length;
	const call = script?.calls[step];
	if (call) {
		const offered = conversation.tools.some((tool) => tool.name === call.tool);
		if (!offered) {
			const names = conversation.tools.map((tool) => tool.name).join(', ') || 'none';
			throw new Error(`the script calls "${call.tool}", but n8n offered these tools: ${names}`);
		}
		return { kind: 'toolCall', tool: call.tool, arguments: call.arguments };
	}
	if (script?.answer !== undefined) return { kind: 'answer', text: script.answer };
	if (conversation.toolResults.length)
		return { kind: 'answer', text: resultsAnswer(conversation.toolResults) };
	return { kind: 'answer', text: echoAnswer(conversation) };
}
