/**
 * `npm run test:e2e`: the packed package installed as a community node in a real n8n 2.40.7, the
 * examples executed by n8n's CLI against the sandbox, the delivery-event loop, inbound messages answered, and the
 * editor in Chromium. `MESSAGING_N8N_VERSION` runs it on another n8n: `npm run test:compat` does, with a subset.
 */
import path from 'node:path';

import { checkAiAgent } from '../../test/e2e/ai-agent.e2e';
import { checkDeliveryEvents } from '../../test/e2e/delivery-events.e2e';
import { checkEditor } from '../../test/e2e/editor.e2e';
import { checkErrorOutput } from '../../test/e2e/error-output.e2e';

import { runInE2eEnvironment } from '../../test/e2e/environment';
import { runCheckScript, type CheckRunner } from '../../test/e2e/harness';
import { checkHumanReview } from '../../test/e2e/human-review.e2e';
import { checkInboundMessages } from '../../test/e2e/inbound-messages.e2e';
import { checkInstalledPackage } from '../../test/e2e/installed-package.e2e';
import { checkProviderBudgets } from '../../test/e2e/provider-budgets.e2e';
import { checkSendAndWait } from '../../test/e2e/send-and-wait.e2e';
import { checkTriggerBurst } from '../../test/e2e/trigger-burst.e2e';
import { checkRecoveredBatch, checkTriggerRestart } from '../../test/e2e/trigger-restart.e2e';
import type { E2eContext } from '../../test/e2e/context';
import { checkExamples, type Acknowledgement } from '../../test/e2e/examples.e2e';
import type { LocalStack } from '../lib/local-stack';
import { ModelDoubleAdmin } from '../model-double/admin';
import { DEFAULT_N8N_VERSION, N8N_VERSION, REPO_ROOT } from '../n8n/paths';

const SCREENSHOTS_DIR = path.join(REPO_ROOT, 'docs', 'screenshots');

function elapsed(since: number): string {
	return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

interface E2ePhase {
	name: string;
	title: string;
	run: () => Promise<unknown>;
}

/** Phases whose checks read what an earlier phase produced. */
const PHASE_NEEDS: Record<string, string[]> = {
	'delivery-events': ['examples'],
	inbound: ['examples'],
};

/**
 * `E2E_ONLY=send-and-wait,editor npm run test:e2e` runs those phases (and the ones they read from), for working on
 * one part; CI leaves it unset and runs every phase.
 */
function selectedPhases(phases: E2ePhase[]): Set<string> {
	const all = phases.map((phase) => phase.name);
	const only = process.env.E2E_ONLY?.split(',')
		.map((name) => name.trim())
		.filter(Boolean);
	if (!only?.length) return new Set(all);
	const unknown = only.filter((name) => !all.includes(name));
	if (unknown.length) {
		throw new Error(
			`E2E_ONLY names unknown phases: ${unknown.join(', ')}; known: ${all.join(', ')}`,
		);
	}
	return new Set([...only, ...only.flatMap((name) => PHASE_NEEDS[name] ?? [])]);
}

async function runPhases(phases: E2ePhase[], selected: Set<string>): Promise<void> {
	for (const phase of phases) {
		if (!selected.has(phase.name)) {
			console.log(`${phase.title}: not run (E2E_ONLY)`);
			continue;
		}
		console.log(phase.title);
		const started = Date.now();
		await phase.run();
		console.log(`  (${elapsed(started)})`);
	}
}

/** Every phase of the e2e, in the order they run; a phase may read what an earlier one produced. */
function e2ePhases(context: E2eContext, runner: CheckRunner, stack: LocalStack): E2ePhase[] {
	const acknowledgements = new Map<string, Acknowledgement>();
	const model = () => new ModelDoubleAdmin(stack.modelDouble.baseUrl);
	return [
		{
			name: 'installed',
			title: 'Installed package',
			run: () => checkInstalledPackage(context, runner),
		},
		{
			name: 'examples',
			title: 'Examples through n8n execute',
			run: async () => {
				for (const [id, ack] of await checkExamples(context, runner)) acknowledgements.set(id, ack);
			},
		},
		{
			name: 'delivery-events',
			title: 'Delivery events',
			run: () => checkDeliveryEvents(context, runner, acknowledgements.get('exSmsOrderDlt001')),
		},
		{
			name: 'inbound',
			title: 'Inbound WhatsApp messages',
			run: () => checkInboundMessages(context, runner, acknowledgements.get('exWaLeadFollow01')),
		},
		{ name: 'error-output', title: 'Error output', run: () => checkErrorOutput(context, runner) },
		{ name: 'send-and-wait', title: 'Send and Wait', run: () => checkSendAndWait(context, runner) },
		{
			name: 'budgets',
			title: 'Provider budgets of a fixed window',
			run: () => checkProviderBudgets(context, runner),
		},
		{ name: 'editor', title: 'Editor in Chromium', run: () => checkEditor(context, runner) },
		{
			name: 'trigger-burst',
			title: 'Messaging Trigger under a burst',
			run: () => checkTriggerBurst(context, runner),
		},
		{
			name: 'ai-agent',
			title: "n8n's AI Agent with the Messaging node as its tool",
			run: () => checkAiAgent(context, runner, model()),
		},
		{
			name: 'human-review',
			title: "The Messaging node as Human review of an AI Agent's tool",
			run: () => checkHumanReview(context, runner, model()),
		},
		// Last: it restarts n8n.
		{
			name: 'trigger-restart',
			title: 'Messaging Trigger retries after n8n restarts',
			run: async () => {
				await checkTriggerRestart(context, runner);
				await checkRecoveredBatch(context, runner);
			},
		},
	];
}

async function main(): Promise<number> {
	return await runInE2eEnvironment(
		// The README's screenshots are of the n8n everything is proven on; a compat run keeps its own in its run folder.
		{
			name: 'e2e',
			screenshotsDir: N8N_VERSION === DEFAULT_N8N_VERSION ? SCREENSHOTS_DIR : undefined,
		},
		async ({ context, runner, stack }) => {
			const phases = e2ePhases(context, runner, stack);
			await runPhases(phases, selectedPhases(phases));
		},
	);
}

runCheckScript(main);
