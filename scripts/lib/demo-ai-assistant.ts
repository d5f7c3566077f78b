import type { ModelDoubleAdmin } from '../model-double/admin';
import { userMessages } from '../model-double/conversation';
import { renderTable, truncate } from './demo-tables';
import { AI_ASSISTANT_EXAMPLE_ID, triggerPathOf, type Example } from './examples';
import type { RecordedRequest, SandboxAdmin } from './sandbox-admin';

const CUSTOMER = '+919812345678';
const MESSAGES = ['Hi, where is my order ORD-1234?', 'Can it come on Friday instead?'];
const REPLY_WAIT_MS = 30_000;

export interface AssistantExchange {
	wrote: string;
	/** The customer's messages the model was given: the one just written and those its memory kept. */
	modelSaw: string[];
	reply?: RecordedRequest;
}

async function waitForReply(
	admin: SandboxAdmin,
	before: number,
): Promise<RecordedRequest | undefined> {
	const deadline = Date.now() + REPLY_WAIT_MS;
	while (Date.now() < deadline) {
		const reply = (await admin.requests())
			.slice(before)
			.find((request) => request.path === '/v1/whatsapp/send' && request.fields?.to === CUSTOMER);
		if (reply) return reply;
		await new Promise((resolve) => setTimeout(resolve, 300));
	}
	return undefined;
}

/**
 * A customer writes twice to the WhatsApp assistant example: the AI Agent answers through the model double,
 * its memory per sender carrying the first message into the second answer.
 */
export async function askTheAssistant(
	admin: SandboxAdmin,
	model: ModelDoubleAdmin,
	n8nBaseUrl: string,
	examples: Example[],
): Promise<AssistantExchange[] | undefined> {
	const example = examples.find((candidate) => candidate.workflow.id === AI_ASSISTANT_EXAMPLE_ID);
	if (!example) return undefined;
	await admin.setAccountWebhook(`${n8nBaseUrl}${triggerPathOf(example)}`);
	await model.echo();
	const exchanges: AssistantExchange[] = [];
	for (const text of MESSAGES) {
		await model.clearRequests();
		const before = (await admin.requests()).length;
		await admin.simulateInbound({ from: CUSTOMER, text });
		const reply = await waitForReply(admin, before);
		const asked = (await model.requests())[0]?.conversation;
		exchanges.push({ wrote: text, modelSaw: asked ? userMessages(asked) : [], reply });
	}
	await admin.setAccountWebhook(null);
	return exchanges;
}

export function assistantTable(exchanges: AssistantExchange[]): string {
	return renderTable(
		['customer wrote', "customer's messages the model got", 'reply the sandbox received'],
		exchanges.map(({ wrote, modelSaw, reply }) => [
			`${CUSTOMER}: "${wrote}"`,
			truncate(modelSaw.map((text) => `"${text}"`).join(', '), 60),
			reply
				? truncate(`to ${String(reply.fields?.to)}: "${String(reply.fields?.text)}"`, 110)
				: `no reply within ${REPLY_WAIT_MS / 1000} s`,
		]),
	);
}
