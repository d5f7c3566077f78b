import { SANDBOX_API_KEY } from '../../scripts/lib/sandbox-server';
import { executeWorkflow, nodeOutput } from '../../scripts/n8n/cli';
import type { E2eContext } from './context';
import { assert, assertEqual, type CheckRunner } from './harness';

export const ERROR_BRANCH_WORKFLOW_ID = 'exSmsErrBranch01';
const MESSAGING_NODE = 'Send shipping SMS';
const SUCCESS_NODE = 'Mark as sent';
const ERROR_NODE = 'Review failed rows';

/**
 * The error-branch example in a real n8n: four campaign rows, one with a bad number and one refused by the API.
 * The success output must carry exactly the two acknowledgements, the error output exactly the two bad rows.
 */
export async function checkErrorOutput(context: E2eContext, runner: CheckRunner): Promise<void> {
	await runner.check(
		'with "Continue (using error output)" acknowledgements and failed rows leave by their own outputs',
		async () => {
			const example = context.examples.find(
				(candidate) => candidate.workflow.id === ERROR_BRANCH_WORKFLOW_ID,
			);
			assert(example, `no example with id ${ERROR_BRANCH_WORKFLOW_ID} in examples/`);
			const before = (await context.sandbox.requests()).length;
			const run = await executeWorkflow(context.cli, ERROR_BRANCH_WORKFLOW_ID);
			const accepted = (await context.sandbox.requests())
				.slice(before)
				.filter((request) => (request.response as { status?: number } | undefined)?.status === 200);

			const succeeded = nodeOutput(run, MESSAGING_NODE, 0);
			assertEqual(
				succeeded.map((item) => item.pairedItem),
				[{ item: 0 }, { item: 3 }],
				'pairing of the success output',
			);
			assertEqual(
				succeeded.map((item) => item.json.message_id),
				accepted.map(
					(request) => (request.response as { body: { message_id: string } }).body.message_id,
				),
				'message ids on the success output, in input order, against what the sandbox accepted',
			);
			assertEqual(
				accepted.map((request) => request.fields?.to),
				['+919812345678', '+919812345691'],
				'numbers the sandbox accepted',
			);

			const failed = nodeOutput(run, MESSAGING_NODE, 1);
			assertEqual(
				failed.map((item) => item.pairedItem),
				[{ item: 1 }, { item: 2 }],
				'pairing of the error output',
			);
			assertEqual(
				failed.map((item) => item.json.name),
				['Ravi', 'Meera'],
				'rows on the error output',
			);
			assertEqual(
				failed[0].json.error,
				`Item 1: 'To' "98123 4560" has no country code`,
				'validation error message',
			);
			const apiError = String(failed[1].json.error);
			assert(
				apiError.startsWith('The Messaging API did not find what was asked for (404)'),
				`API error message: ${apiError}`,
			);
			assertEqual(
				(failed[1].json.details as { httpCode?: string }).httpCode,
				'404',
				'HTTP status of the refused row',
			);
			assert(!JSON.stringify(run).includes(SANDBOX_API_KEY), 'the API key is not in the run');

			assertEqual(
				nodeOutput(run, SUCCESS_NODE, 0).map((item) => item.json),
				succeeded.map((item) => item.json),
				'items reaching "Mark as sent"',
			);
			assertEqual(
				nodeOutput(run, ERROR_NODE, 0).map((item) => item.json),
				failed.map((item) => item.json),
				'items reaching "Review failed rows"',
			);
		},
	);
}
