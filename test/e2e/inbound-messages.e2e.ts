import { createHmac } from 'node:crypto';

import { INBOUND_REPLY_EXAMPLE_ID, triggerPathOf } from '../../scripts/lib/examples';
import type { RecordedRequest } from '../../scripts/lib/sandbox-admin';
import { SANDBOX_SIGNING_SECRET } from '../../scripts/lib/sandbox-server';
import type { E2eContext } from './context';
import type { Acknowledgement } from './examples.e2e';
import {
	DELIVERY_EVENTS_NODES,
	DELIVERY_EVENTS_PATH,
	DELIVERY_EVENTS_WORKFLOW_ID,
	INBOUND_REPLY_NODES,
} from './expected-sends';
import { assert, assertEqual, type CheckRunner } from './harness';
import { firstOutputOf, waitFor } from '../../scripts/n8n/executions';
import { EVENT_TIMEOUT_MS, TriggerRuns } from './trigger-runs';

const {
	trigger: TRIGGER_NODE,
	sessionReply: SESSION_REPLY,
	templateReply: TEMPLATE_REPLY,
} = INBOUND_REPLY_NODES;
const SESSION_TEXT = 'Thanks for your message! Our team has it and will answer here shortly.';
/** Numbers no other check writes from, so each has no session window until its own inbound message. */
const WRITES_IN_WINDOW = '+919855500001';
const WROTE_A_DAY_AGO = '+919855500002';

/** The inbound-reply example in a real n8n: the sandbox's signed inbound event → active trigger → IF → reply. */
export async function checkInboundMessages(
	context: E2eContext,
	runner: CheckRunner,
	leadFollowUp: Acknowledgement | undefined,
): Promise<void> {
	const example = context.examples.find(
		(candidate) => candidate.workflow.id === INBOUND_REPLY_EXAMPLE_ID,
	);
	if (!example) {
		runner.skipBecause(
			'inbound WhatsApp messages reach the inbound-reply example',
			`examples/ has no workflow ${INBOUND_REPLY_EXAMPLE_ID}`,
		);
		return;
	}
	const triggerUrl = `${context.n8nBaseUrl}${triggerPathOf(example)}`;
	await context.sandbox.setAccountWebhook(triggerUrl);
	try {
		await checkSessionReply(context, runner, triggerUrl);
		await checkTemplateReply(context, runner, triggerUrl);
		await checkButtonPress(context, runner, leadFollowUp);
	} finally {
		await context.sandbox.setAccountWebhook(null);
	}
	await checkVersionOneTrigger(context, runner);
}

async function checkSessionReply(
	context: E2eContext,
	runner: CheckRunner,
	triggerUrl: string,
): Promise<void> {
	await runner.check(
		'an inbound text reaches the active trigger and is answered with a session message to its sender',
		async () => {
			const event = await context.sandbox.simulateInbound({
				from: WRITES_IN_WINDOW,
				text: 'Where is my order?',
			});
			const delivery = await replyRuns(context).waitForDelivery(
				'the inbound event',
				(attempt) => attempt.eventId === event.event_id && attempt.status === 200,
			);
			assertEqual(delivery.url, triggerUrl, 'where the inbound event went (the account webhook)');
			const execution = await waitForInboundExecution(context, event.event_id);
			assertEqual(execution.status, 'success', 'execution status');
			const [item] = firstOutputOf(execution, TRIGGER_NODE);
			const windowEnd = new Date(Date.parse(event.timestamp) + 24 * 60 * 60 * 1000).toISOString();
			assertEqual(
				item,
				{ ...event, window_expires_at: windowEnd },
				'the item the trigger passed on',
			);
			assert(
				execution.runData[SESSION_REPLY] && !execution.runData[TEMPLATE_REPLY],
				'the open window must lead to the session reply only',
			);
			const reply = await sendTo(context, WRITES_IN_WINDOW);
			assertEqual(
				reply.fields,
				{ to: WRITES_IN_WINDOW, type: 'session', text: SESSION_TEXT },
				'the session reply the sandbox received',
			);
			assertEqual(
				(reply.response as { status?: number }).status,
				200,
				'the sandbox accepted the session reply (the inbound message opened its window)',
			);
		},
	);
}

async function checkTemplateReply(
	context: E2eContext,
	runner: CheckRunner,
	triggerUrl: string,
): Promise<void> {
	await runner.check(
		'an inbound message whose window has already closed is answered with a template; its redelivery runs nothing',
		async () => {
			const wroteAt = new Date(Date.now() - 25 * 60 * 60 * 1000).toISOString();
			const event = {
				event_id: `evt_e2e_late_${Date.now()}`,
				type: 'message.inbound',
				message_id: `msg_e2e_late_${Date.now()}`,
				channel: 'whatsapp',
				from: WROTE_A_DAY_AGO,
				to: '+918000012345',
				timestamp: wroteAt,
				message_type: 'text',
				text: 'Hello? Anyone there?',
			};
			const first = await postSigned(triggerUrl, JSON.stringify(event));
			assertEqual(
				first,
				{ status: 200, body: { received: 1, accepted: 1, duplicates: 0, filteredOut: 0 } },
				'answer to the event',
			);
			const execution = await waitForInboundExecution(context, event.event_id);
			assert(
				execution.runData[TEMPLATE_REPLY] && !execution.runData[SESSION_REPLY],
				'a closed window must lead to the template reply only',
			);
			const reply = await sendTo(context, WROTE_A_DAY_AGO);
			assertEqual(
				[reply.fields?.type, reply.fields?.template_name],
				['template', 'welcome'],
				'the template reply the sandbox received',
			);
			const again = await postSigned(triggerUrl, JSON.stringify(event));
			assertEqual(
				again.body,
				{ received: 1, accepted: 0, duplicates: 1, filteredOut: 0 },
				'answer to the redelivery',
			);
		},
	);
}

async function checkButtonPress(
	context: E2eContext,
	runner: CheckRunner,
	leadFollowUp: Acknowledgement | undefined,
): Promise<void> {
	const name =
		'a quick-reply button press on the lead follow-up template arrives with the payload that template carried';
	if (!leadFollowUp) return runner.skipBecause(name, 'the lead follow-up example did not send');
	await runner.check(name, async () => {
		const event = await context.sandbox.simulateInbound({
			button: { messageId: leadFollowUp.message_id, position: 1 },
		});
		const execution = await waitForInboundExecution(context, event.event_id);
		const [item] = firstOutputOf(execution, TRIGGER_NODE);
		assertEqual(
			[item.message_type, item.button, item.context],
			[
				'button',
				{ payload: 'book-visit-L-1042', text: 'Book a visit' },
				{ message_id: leadFollowUp.message_id },
			],
			'the button press the trigger passed on',
		);
	});
}

async function checkVersionOneTrigger(context: E2eContext, runner: CheckRunner): Promise<void> {
	await runner.check(
		'a trigger saved before inbound messages (version 1) answers one 200 and starts nothing',
		async () => {
			const body = JSON.stringify({
				event_id: `evt_e2e_v1_${Date.now()}`,
				type: 'message.inbound',
				message_id: 'msg_e2e_v1',
				channel: 'whatsapp',
				from: '+919812345678',
				to: '+918000012345',
				timestamp: new Date().toISOString(),
				message_type: 'text',
				text: 'Hi',
			});
			const post = async () => {
				const answer = await postSigned(`${context.n8nBaseUrl}${DELIVERY_EVENTS_PATH}`, body);
				assertEqual(
					answer,
					{ status: 200, body: { received: 1, accepted: 0, duplicates: 0, filteredOut: 1 } },
					'answer of the version 1 trigger',
				);
			};
			const versionOne = new TriggerRuns(
				context,
				DELIVERY_EVENTS_WORKFLOW_ID,
				DELIVERY_EVENTS_NODES.trigger,
			);
			await versionOne.assertStartsNothing(post, 'executions of the version 1 trigger');
		},
	);
}

/** Signed as the sandbox signs: HMAC-SHA256 of "<unix seconds>.<raw body>" with the account secret. */
async function postSigned(url: string, body: string): Promise<{ status: number; body: unknown }> {
	const timestamp = String(Math.floor(Date.now() / 1000));
	const signature = createHmac('sha256', SANDBOX_SIGNING_SECRET)
		.update(`${timestamp}.${body}`)
		.digest('hex');
	const response = await fetch(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			'x-messaging-timestamp': timestamp,
			'x-messaging-signature': `v1=${signature}`,
		},
		body,
	});
	const text = await response.text();
	return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null };
}

async function sendTo(context: E2eContext, to: string): Promise<RecordedRequest> {
	return waitFor(`the sandbox to receive a reply to ${to}`, EVENT_TIMEOUT_MS, async () =>
		(await context.sandbox.requests()).find(
			(request) => request.path === '/v1/whatsapp/send' && request.fields?.to === to,
		),
	);
}

/** The inbound-reply example's runs, told apart by the event its trigger passed on. */
function replyRuns(context: E2eContext): TriggerRuns {
	return new TriggerRuns(context, INBOUND_REPLY_EXAMPLE_ID, TRIGGER_NODE);
}

async function waitForInboundExecution(context: E2eContext, eventId: string) {
	return await replyRuns(context).waitForRun(
		`the inbound event ${eventId}`,
		(item) => item.event_id === eventId,
	);
}
