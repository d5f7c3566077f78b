import { answerLinksIn } from '../../scripts/lib/approval-round-trip';
import type { ModelDoubleAdmin } from '../../scripts/model-double/admin';
import {
	agentWorkflow,
	answeringAtOnce,
	fromAi,
	toolNameOf,
	withAgentVersion,
	withExecutionOrder,
	type AgentWorkflow,
} from './agent-workflows';
import {
	answer,
	createAgent,
	ended,
	sentSince,
	startAgent,
	toolResults,
	type StartedRun,
} from './agent-runs';
import type { E2eContext } from './context';
import { assert, assertEqual, type CheckRunner } from './harness';

export const APPROVER = '+919877710001';

/** Send and Wait as a plain tool: the agent asks the manager itself, in words the model writes. */
const ASK_TOOL = {
	name: 'Ask the manager',
	parameters: {
		resource: 'whatsapp',
		operation: 'sendAndWait',
		to: APPROVER,
		messageType: 'session',
		message: `={{ ${fromAi('text')} }}`,
		approvalOptions: { values: { approvalType: 'double' } },
		options: {},
	},
};
const ASK = [
	{ tool: toolNameOf(ASK_TOOL.name), arguments: { text: 'May I tell Asha order 1234 shipped?' } },
];

const INSTEAD =
	"connect the Messaging node to the tool as Human review instead (on the tool's connector: Human review > Messaging), or use Send.";
const OLD_AGENT = `Send and Wait cannot run as this AI Agent's tool: an AI Agent before version 3 runs its tools itself and does not wait for a person's answer. Upgrade the AI Agent node to version 3 or later, ${INSTEAD}`;
const LEGACY_ORDER = `Send and Wait cannot run as an agent tool under the legacy execution order (v0): n8n resumes the agent before the person answers. Set Workflow Settings > Execution Order to "v1 (recommended)", ${INSTEAD}`;

function askingAgent(name: string): AgentWorkflow {
	return answeringAtOnce(agentWorkflow(name, [ASK_TOOL], { responsesApi: true }));
}

function toolError(run: { runData: Record<string, unknown[]> }): unknown {
	const [toolRun] = (run.runData[ASK_TOOL.name] ?? []) as Array<{ error?: { message?: string } }>;
	return toolRun?.error?.message;
}

export async function checkSendAndWaitAsPlainTool(
	context: E2eContext,
	runner: CheckRunner,
	model: ModelDoubleAdmin,
): Promise<void> {
	await runner.check(
		'Send and Wait as a plain tool of AI Agent 3.1 (execution order v1) waits: the question goes out, the execution waits, the approval resumes the agent with the answer as the tool result',
		async () => {
			const agent = await createAgent(context, askingAgent('AI agent: Send and Wait as a tool'));
			const started = await startAgent(context, model, agent, ASK);
			assertEqual(started.execution.status, 'waiting', 'status once asked');
			const [question] = await sentSince(context, started.sentBefore);
			assert(
				String(question?.fields?.text).startsWith(`${ASK[0].arguments.text}\n\n✓ Approve: `),
				`the question: ${JSON.stringify(question?.fields)}`,
			);
			await answer(answerLinksIn(context.n8nBaseUrl, question.fields ?? {})[0], true);
			const finished = await ended(context, started.execution.id);
			assertEqual(finished.status, 'success', 'status after the answer');
			const results = toolResults(await model.requests()).map((result) => JSON.parse(result));
			assertEqual(
				results.map(([item]: Array<Record<string, unknown>>) => [
					item.answered,
					item.data,
					item.to,
				]),
				[[true, { approved: true }, APPROVER]],
				'the answer the model got as the tool result',
			);
		},
	);
	await checkOldAgent(context, runner, model);
	await checkLegacyOrder(context, runner, model);
}

async function refusedRun(context: E2eContext, model: ModelDoubleAdmin, workflow: AgentWorkflow) {
	const agent = await createAgent(context, workflow);
	const started: StartedRun = await startAgent(context, model, agent, ASK);
	const finished = await ended(context, started.execution.id);
	assertEqual(await sentSince(context, started.sentBefore), [], 'requests the sandbox received');
	return finished;
}

async function checkOldAgent(
	context: E2eContext,
	runner: CheckRunner,
	model: ModelDoubleAdmin,
): Promise<void> {
	await runner.check(
		'Send and Wait as a plain tool of AI Agent 2.2 (it runs its tools itself and cannot wait) fails before anything is sent: nothing reaches the sandbox, the model reads why and what to do instead',
		async () => {
			const workflow = withAgentVersion(askingAgent('AI agent 2.2: Send and Wait as a tool'), 2.2);
			const finished = await refusedRun(context, model, workflow);
			assertEqual(finished.status, 'success', 'execution status');
			assertEqual(
				toolResults(await model.requests()),
				[JSON.stringify([{ error: OLD_AGENT }])],
				'what the model read',
			);
		},
	);
}

async function checkLegacyOrder(
	context: E2eContext,
	runner: CheckRunner,
	model: ModelDoubleAdmin,
): Promise<void> {
	await runner.check(
		'Send and Wait as a plain tool under the legacy execution order v0 (n8n resumes the agent before the tool runs) fails before anything is sent: nothing reaches the sandbox, the execution fails with why and what to do',
		async () => {
			const workflow = withExecutionOrder(
				askingAgent('AI agent, v0: Send and Wait as a tool'),
				'v0',
			);
			const finished = await refusedRun(context, model, workflow);
			assertEqual(finished.status, 'error', 'execution status');
			assertEqual(toolError(finished), LEGACY_ORDER, "the tool run's error");
		},
	);
}
