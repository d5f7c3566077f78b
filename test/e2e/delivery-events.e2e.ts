import { importWorkflows, executeWorkflow, outputItemsOf } from '../../scripts/n8n/cli';
import type { Example, WorkflowJson } from '../../scripts/lib/examples';
import { forN8nAt } from '../../scripts/lib/examples';
import type { E2eContext } from './context';
import type { Acknowledgement } from './examples.e2e';
import {
	DELIVERY_EVENTS_NODES,
	DELIVERY_EVENTS_PATH,
	DELIVERY_EVENTS_WORKFLOW_ID,
} from './expected-sends';
import { assert, assertEqual, type CheckRunner } from './harness';
import { firstOutputOf } from '../../scripts/n8n/executions';
import { TriggerRuns } from './trigger-runs';

const {
	trigger: TRIGGER_NODE,
	delivered: DELIVERED_BRANCH,
	failed: FAILED_BRANCH,
} = DELIVERY_EVENTS_NODES;
/** Seeded in the sandbox: SMS to this number fails with `dnd_blocked`. */
const FAILING_RECIPIENT = '+919800000001';

/** The issue 4 loop in a real n8n: send with callback_url → sandbox lifecycle → signed event → active trigger. */
export async function checkDeliveryEvents(
	context: E2eContext,
	runner: CheckRunner,
	smsAck: Acknowledgement | undefined,
): Promise<void> {
	const runs = new TriggerRuns(context, DELIVERY_EVENTS_WORKFLOW_ID, TRIGGER_NODE);
	if (!smsAck) {
		runner.skipBecause(
			'a delivered event reaches the active Messaging Trigger and runs its workflow',
			'the SMS example did not send',
		);
	} else {
		await runner.check(
			'a delivered event reaches the active Messaging Trigger and runs its workflow',
			async () => {
				const delivery = await runs.waitForDelivery(
					'the "delivered" event',
					(attempt) =>
						attempt.messageId === smsAck.message_id &&
						attempt.messageStatus === 'delivered' &&
						attempt.status === 200,
				);
				assertEqual(
					delivery.url,
					`${context.n8nBaseUrl}${DELIVERY_EVENTS_PATH}`,
					'delivery URL (the callback URL of the send)',
				);
				const execution = await runStatus(runs, smsAck.message_id, 'delivered');
				assertEqual(execution.status, 'success', 'trigger execution status');
				const [event] = firstOutputOf(execution, TRIGGER_NODE);
				assertEqual(
					{
						event_id: event.event_id,
						channel: event.channel,
						recipient: event.recipient,
						error: event.error,
					},
					{ event_id: delivery.eventId, channel: 'sms', recipient: '+919812345678', error: null },
					'event the trigger passed on',
				);
				assertEqual(
					firstOutputOf(execution, 'Delivered?', 0).length,
					1,
					'items on the "delivered" branch',
				);
				assert(execution.runData[DELIVERED_BRANCH], `"${DELIVERED_BRANCH}" did not run`);
				const forThisMessage = await runs.matching(
					(event) => event.message_id === smsAck.message_id,
				);
				assertEqual(
					forThisMessage.map((run) => firstOutputOf(run, TRIGGER_NODE)[0].status),
					['delivered'],
					'executions for this message (the "sent" event is filtered out)',
				);
			},
		);
	}

	await runner.check('a failing recipient produces a "failed" event with its reason', async () => {
		const example = context.examples.find(
			(candidate) => candidate.workflow.id === 'exSmsOrderDlt001',
		);
		assert(example, 'the SMS example is missing');
		await importWorkflows(context.cli, [failingRecipientVariant(example, context.n8nBaseUrl)]);
		const run = await executeWorkflow(context.cli, FAILING_VARIANT_ID);
		const [ack] = outputItemsOf(run, 'Send shipping SMS') as unknown as Acknowledgement[];
		assertEqual(ack.status, 'queued', 'the provider accepts the message first');
		const execution = await runStatus(runs, ack.message_id, 'failed');
		const [event] = firstOutputOf(execution, TRIGGER_NODE);
		assertEqual(
			(event.error as { code?: string } | null)?.code,
			'dnd_blocked',
			'error code in the event',
		);
		assert(
			typeof (event.error as { message?: unknown }).message === 'string',
			'the event explains the failure',
		);
		assert(execution.runData[FAILED_BRANCH], `"${FAILED_BRANCH}" did not run`);
	});

	await runner.check(
		'without a callback URL the event goes to the account webhook, and reaches the trigger there',
		async () => {
			const example = context.examples.find(
				(candidate) => candidate.workflow.id === 'exSmsOrderDlt001',
			);
			assert(example, 'the SMS example is missing');
			const accountWebhook = `${context.n8nBaseUrl}${DELIVERY_EVENTS_PATH}`;
			await context.sandbox.setAccountWebhook(accountWebhook);
			try {
				await importWorkflows(context.cli, [withoutCallbackUrl(example, context.n8nBaseUrl)]);
				const run = await executeWorkflow(context.cli, NO_CALLBACK_VARIANT_ID);
				const [ack] = outputItemsOf(run, 'Send shipping SMS') as unknown as Acknowledgement[];
				const sent = (await context.sandbox.requests()).find(
					(request) =>
						(request.response as { body?: { message_id?: string } })?.body?.message_id ===
						ack.message_id,
				);
				assert(
					sent && !('callback_url' in (sent.fields ?? {})),
					'the send must carry no callback_url',
				);
				const execution = await runStatus(runs, ack.message_id, 'delivered');
				assertEqual(execution.status, 'success', 'trigger execution status');
				const attempts = (await context.sandbox.webhookDeliveries()).filter(
					(attempt) => attempt.messageId === ack.message_id,
				);
				assert(
					attempts.length > 0 && attempts.every((attempt) => attempt.url === accountWebhook),
					'deliveries went elsewhere than the account webhook',
				);
			} finally {
				await context.sandbox.setAccountWebhook(null);
			}
		},
	);

	await runner.check(
		'the trigger answers 401 to unsigned or tampered events and starts nothing',
		async () => {
			const body = JSON.stringify({
				event_id: 'evt_forged',
				type: 'message.status',
				message_id: 'msg_forged',
				channel: 'sms',
				status: 'delivered',
				timestamp: new Date().toISOString(),
				recipient: '+919812345678',
				error: null,
			});
			const url = `${context.n8nBaseUrl}${DELIVERY_EVENTS_PATH}`;
			const forge = async () => {
				const unsigned = await fetch(url, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body,
				});
				assertEqual(unsigned.status, 401, 'answer to an unsigned event');
				const tampered = await fetch(url, {
					method: 'POST',
					headers: {
						'content-type': 'application/json',
						'x-messaging-event-id': 'evt_forged',
						'x-messaging-timestamp': String(Math.floor(Date.now() / 1000)),
						'x-messaging-signature': `v1=${'0'.repeat(64)}`,
					},
					body,
				});
				assertEqual(tampered.status, 401, 'answer to a wrongly signed event');
			};
			await runs.assertStartsNothing(forge, 'trigger executions');
		},
	);
}

const FAILING_VARIANT_ID = 'e2eSmsFailing001';

/** The SMS example with its sample customer swapped for a recipient the sandbox fails. */
function failingRecipientVariant(example: Example, origin: string): WorkflowJson {
	const workflow = forN8nAt(example.workflow, origin);
	const text = JSON.stringify(workflow).replace('+91 98123 45678', FAILING_RECIPIENT);
	assert(
		text.includes(FAILING_RECIPIENT),
		'the sample phone in the SMS example changed; update this test',
	);
	return {
		...(JSON.parse(text) as WorkflowJson),
		id: FAILING_VARIANT_ID,
		name: 'E2E: DLT SMS to a failing recipient',
	};
}

const NO_CALLBACK_VARIANT_ID = 'e2eSmsNoCallbk01';

/** The SMS example without its Callback URL option, so the account-level webhook applies. */
function withoutCallbackUrl(example: Example, origin: string): WorkflowJson {
	const workflow = JSON.parse(JSON.stringify(forN8nAt(example.workflow, origin))) as WorkflowJson;
	const send = workflow.nodes.find((node) => node.name === 'Send shipping SMS');
	const options = send?.parameters.options as Record<string, unknown> | undefined;
	assert(
		options && 'callbackUrl' in options,
		'the SMS example has no Callback URL option; update this test',
	);
	delete options.callbackUrl;
	return {
		...workflow,
		id: NO_CALLBACK_VARIANT_ID,
		name: 'E2E: DLT SMS relying on the account webhook',
	};
}

/** The run for one message's event of one status. */
async function runStatus(runs: TriggerRuns, messageId: string, status: string) {
	return await runs.waitForRun(
		`${messageId} with status ${status}`,
		(event) => event.message_id === messageId && event.status === status,
	);
}
