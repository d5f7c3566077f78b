import { openLink, postToLink } from '../../scripts/lib/approval-round-trip';
import type { RecordedRequest } from '../../scripts/lib/sandbox-admin';
import type { ModelDoubleAdmin } from '../../scripts/model-double/admin';
import type { ScriptedCall } from '../../scripts/model-double/conversation';
import type { RecordedModelRequest } from '../../scripts/model-double/server';
import {
	listExecutions,
	readExecution,
	waitFor,
	type StoredExecution,
} from '../../scripts/n8n/executions';
import type { AgentWorkflow } from './agent-workflows';
import type { E2eContext } from './context';
import { assert, assertEqual } from './harness';

/** Agent runs that wait for a person: started by a webhook that answers at once, then followed by their id. */

const RUN_TIMEOUT_MS = 60_000;

export type ActiveAgent = AgentWorkflow & { id: string };

export interface StartedRun {
	/** The execution once it waits or ended. */
	execution: StoredExecution;
	/** How many requests the sandbox had received before the run: what it sent is what came after. */
	sentBefore: number;
}

export async function createAgent(
	context: E2eContext,
	workflow: AgentWorkflow,
): Promise<ActiveAgent> {
	return { ...workflow, id: await context.rest.createActiveWorkflow(workflow.json) };
}

async function webhookRegistered(context: E2eContext, agent: ActiveAgent): Promise<void> {
	await waitFor(`the webhook ${agent.webhookPath} to be registered`, RUN_TIMEOUT_MS, async () => {
		// n8n answers "not registered" for a while after activation; once it is, a GET is told to use POST.
		const probe = await fetch(`${context.n8nBaseUrl}/webhook/${agent.webhookPath}`);
		return (await probe.text()).includes('POST') ? true : undefined;
	});
}

/** Posts the prompt and waits until the execution waits or ends. */
export async function startAgent(
	context: E2eContext,
	model: ModelDoubleAdmin,
	agent: ActiveAgent,
	calls: ScriptedCall[],
): Promise<StartedRun> {
	await model.clearRequests();
	await model.play({ calls });
	await webhookRegistered(context, agent);
	const before = new Set((await listExecutions(context.rest, agent.id)).map((run) => run.id));
	const sentBefore = (await context.sandbox.requests()).length;
	const response = await fetch(`${context.n8nBaseUrl}/webhook/${agent.webhookPath}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ prompt: 'Tell Asha her order 1234 shipped' }),
	});
	assert(response.ok, `the agent's webhook answered ${response.status}: ${await response.text()}`);
	const execution = await waitFor(
		'the agent execution to wait or end',
		RUN_TIMEOUT_MS,
		async () => {
			const run = (await listExecutions(context.rest, agent.id)).find(
				(candidate) =>
					!before.has(candidate.id) && ['waiting', 'success', 'error'].includes(candidate.status),
			);
			return run ? await readExecution(context.rest, run.id) : undefined;
		},
	);
	return { execution, sentBefore };
}

export async function ended(context: E2eContext, executionId: string): Promise<StoredExecution> {
	return await waitFor('the execution to end', RUN_TIMEOUT_MS, async () => {
		const run = await readExecution(context.rest, executionId);
		return ['waiting', 'running', 'new'].includes(run.status) ? undefined : run;
	});
}

export async function sentSince(context: E2eContext, since: number): Promise<RecordedRequest[]> {
	return (await context.sandbox.requests()).slice(since);
}

/** What n8n sent the model as the tools' results, in order, in the run's last model request. */
export function toolResults(requests: RecordedModelRequest[]): string[] {
	return requests.at(-1)?.conversation?.toolResults.map((result) => result.output) ?? [];
}

export function agentAnswer(execution: StoredExecution): unknown {
	return execution.runData['AI Agent']?.at(-1)?.data?.main?.[0]?.[0]?.json.output;
}

/** Opens the link as the person's phone would (it answers nothing), then posts the page's form. */
export async function answer(link: string, approved: boolean): Promise<void> {
	const page = await openLink(link);
	assertEqual(page.status, 200, 'status of the answer page');
	assert(
		page.body.includes(`name="approved" value="${approved}"`),
		`the page's form: ${page.body.slice(0, 300)}`,
	);
	const pressed = await postToLink(link, { approved: String(approved) });
	assertEqual(pressed.status, 200, 'status of the press');
}
