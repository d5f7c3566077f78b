import type { IWebhookFunctions } from 'n8n-workflow';

/**
 * n8n gives a node no API for its version. Every n8n process is started by n8n's own bin script, so the main module
 * resolves n8n's package.json; anything else is reported as unknown rather than guessed (the n8n-workflow a
 * community package resolves can be its own peer copy, of another version).
 */
export function runningN8nVersion(): string {
	try {
		const manifest = require.main?.require('../package.json') as {
			name?: string;
			version?: string;
		};
		if (manifest?.name === 'n8n' && typeof manifest.version === 'string') return manifest.version;
	} catch {
		// Not started by n8n's bin script: nothing reliable to name.
	}
	return 'unknown';
}

export function warnUnsaved(context: IWebhookFunctions): void {
	const version = runningN8nVersion();
	context.logger.warn(
		`Messaging Trigger: n8n ${version} answered a delivery without saving the event IDs the trigger wrote to the workflow's static data. Until that is fixed, a retry of an event that reaches another n8n process, or arrives after n8n restarts, may run again; within this process retries are still dropped. The trigger's workaround was made for n8n 2.40's order of operations; report this with the n8n version (${version}). Logged once per workflow and process.`,
		{ node: context.getNode().name, workflowId: context.getWorkflow().id, n8nVersion: version },
	);
}

/** Logged each time: it names a delivery whose retries elsewhere may run again, which the operator may want to find. */
export function warnOvertaken(context: IWebhookFunctions): void {
	context.logger.warn(
		'Messaging Trigger: n8n saved an older copy of the event IDs over this delivery’s, and could not start the execution of the delivery that would have saved them again. Until this process saves again, a retry of these events that reaches another n8n process, or arrives after n8n restarts, may run again; within this process retries are still dropped.',
		{ node: context.getNode().name, workflowId: context.getWorkflow().id },
	);
}
