import { renderTable, truncate } from './demo-tables';
import { INBOUND_REPLY_EXAMPLE_ID, triggerPathOf, type Example } from './examples';
import type { InboundEvent, RecordedRequest, SandboxAdmin } from './sandbox-admin';

/** The demo's customer: the number the other examples write to. */
const CUSTOMER = '+919812345678';
const REPLY_WAIT_MS = 20_000;

export interface InboundRoundTrip {
	example: Example;
	event: InboundEvent;
	/** The sandbox's delivery of the event to n8n: its HTTP answer, or what went wrong. */
	delivered: string;
	reply?: RecordedRequest;
}

/**
 * A customer writes on WhatsApp: the sandbox POSTs the signed event to the account webhook, which points at the
 * inbound-reply example's active Messaging Trigger, and the workflow answers. Waits for the answer to reach the sandbox.
 */
export async function answerInboundMessage(
	admin: SandboxAdmin,
	n8nBaseUrl: string,
	examples: Example[],
): Promise<InboundRoundTrip | undefined> {
	const example = examples.find((candidate) => candidate.workflow.id === INBOUND_REPLY_EXAMPLE_ID);
	if (!example) return undefined;
	await admin.setAccountWebhook(`${n8nBaseUrl}${triggerPathOf(example)}`);
	const before = (await admin.requests()).length;
	const event = await admin.simulateInbound({
		from: CUSTOMER,
		text: 'Hi, where is my order ORD-1234?',
	});
	const deadline = Date.now() + REPLY_WAIT_MS;
	let reply: RecordedRequest | undefined;
	while (!reply && Date.now() < deadline) {
		await new Promise((resolve) => setTimeout(resolve, 300));
		reply = (await admin.requests())
			.slice(before)
			.find((request) => request.path === '/v1/whatsapp/send' && request.fields?.to === CUSTOMER);
	}
	const attempts = (await admin.webhookDeliveries()).filter(
		(attempt) => attempt.eventId === event.event_id,
	);
	const last = attempts[attempts.length - 1];
	const delivered = last
		? last.status
			? `HTTP ${last.status}`
			: String(last.error ?? 'no answer')
		: 'not delivered';
	return { example, event, delivered, reply };
}

export function inboundTable(roundTrip: InboundRoundTrip): string {
	const { event, delivered, reply } = roundTrip;
	const fields = (reply?.fields ?? {}) as Record<string, string>;
	const answer = reply?.response as
		| { status?: number; body?: { message_id?: string; status?: string } }
		| undefined;
	const replied = reply
		? `${fields.type === 'session' ? `session "${fields.text}"` : `template ${fields.template_name}`} → ${answer?.body?.message_id ?? `HTTP ${answer?.status}`}`
		: `no reply within ${REPLY_WAIT_MS / 1000} s`;
	return renderTable(
		['customer wrote', 'event to n8n', 'n8n answered', 'reply the sandbox received'],
		[
			[
				`${event.from}: "${event.text ?? ''}"`,
				`${event.event_id} (${event.type})`,
				delivered,
				truncate(replied, 110),
			],
		],
	);
}
