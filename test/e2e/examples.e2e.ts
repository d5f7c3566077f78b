import { executeWorkflow, outputItemsOf } from '../../scripts/n8n/cli';
import type { RecordedRequest } from '../../scripts/lib/sandbox-admin';
import type { E2eContext } from './context';
import { expectedSends, AUTHORIZATION, type ExpectedSend } from './expected-sends';
import { assert, assertEqual, type CheckRunner } from './harness';

export interface Acknowledgement {
	message_id: string;
	status: string;
	channel: string;
}

/** Runs each example with `n8n execute` and checks the node's output against what the sandbox received. */
export async function checkExamples(
	context: E2eContext,
	runner: CheckRunner,
): Promise<Map<string, Acknowledgement>> {
	const acknowledgements = new Map<string, Acknowledgement>();
	const expected = expectedSends(context.n8nBaseUrl);
	for (const send of expected) {
		const example = context.examples.find((candidate) => candidate.workflow.id === send.workflowId);
		await runner.check(
			`example "${example?.workflow.name ?? send.workflowId}" sends through the installed node`,
			async () => {
				assert(example, `no example with id ${send.workflowId} in examples/`);
				const run = await executeWorkflow(context.cli, send.workflowId);
				const items = outputItemsOf(run, send.messagingNode);
				assertEqual(items.length, 1, 'output items of the Messaging node');
				const [ack] = items as unknown as Acknowledgement[];
				assertEqual(
					Object.keys(ack).sort(),
					['channel', 'message_id', 'status'],
					'acknowledgement keys',
				);
				assert(
					/^msg_\w+$/.test(ack.message_id),
					`message_id "${ack.message_id}" is not a sandbox id`,
				);
				assertEqual([ack.channel, ack.status], [send.channel, send.status], 'channel and status');
				const request = findRequestFor(await context.sandbox.requests(), ack.message_id);
				assertReceived(request, send);
				acknowledgements.set(send.workflowId, ack);
			},
		);
	}
	await runner.check(
		'the sandbox received exactly one request per example send, nothing else',
		async () => {
			const requests = await context.sandbox.requests();
			assertEqual(requests.length, acknowledgements.size, 'requests the sandbox received');
			assertEqual(acknowledgements.size, expected.length, 'examples that sent');
		},
	);
	return acknowledgements;
}

function findRequestFor(requests: RecordedRequest[], messageId: string): RecordedRequest {
	const request = requests.find(
		(candidate) =>
			(candidate.response as { body?: { message_id?: string } })?.body?.message_id === messageId,
	);
	assert(request, `the sandbox has no request answered with ${messageId}`);
	return request;
}

function assertReceived(request: RecordedRequest, send: ExpectedSend): void {
	assertEqual([request.method, request.path], ['POST', send.path], 'method and path');
	assertEqual(request.headers.authorization, AUTHORIZATION, 'Authorization header');
	assert(
		String(request.headers['content-type']).startsWith('application/x-www-form-urlencoded'),
		`content type ${request.headers['content-type']}`,
	);
	const fields = request.fields ?? {};
	assertEqual(
		Object.keys(fields).sort(),
		[...Object.keys(send.fields), ...Object.keys(send.jsonFields)].sort(),
		'field names',
	);
	for (const [name, value] of Object.entries(send.fields))
		assertEqual(fields[name], value, `field ${name}`);
	for (const [name, value] of Object.entries(send.jsonFields)) {
		assertEqual(typeof fields[name], 'string', `${name} is JSON-encoded text`);
		assertEqual(JSON.parse(fields[name] as string), value, `field ${name} (parsed)`);
	}
}
