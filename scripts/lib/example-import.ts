import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { importWorkflows, type N8nCliTarget } from '../n8n/cli';
import type { N8nRestClient } from '../n8n/rest-client';
import { forN8nAt, MESSAGING_TRIGGER_NODE_TYPE, waitsForAnswer, type Example } from './examples';

export interface ImportOptions {
	/** Origin of the n8n the examples are imported into; their callback URLs are rewritten to it. */
	origin: string;
	/** Re-import only examples whose file changed since the last import, so edits made in the editor survive. */
	keepUnchanged: boolean;
}

export function startsWithMessagingTrigger(example: Example): boolean {
	return example.workflow.nodes.some((node) => node.type === MESSAGING_TRIGGER_NODE_TYPE);
}

/** Imports through the CLI in one go (each CLI call boots n8n, seconds each). Returns the imported names. */
export async function importExamples(
	target: N8nCliTarget,
	examples: Example[],
	options: ImportOptions,
): Promise<string[]> {
	const stateFile = path.join(target.userFolder, 'imported-examples.json');
	const imported: Record<string, string> = fs.existsSync(stateFile)
		? JSON.parse(fs.readFileSync(stateFile, 'utf8'))
		: {};
	const toImport = examples
		.map((example) => {
			const workflow = forN8nAt(example.workflow, options.origin);
			return {
				file: example.file,
				workflow,
				hash: createHash('sha256').update(JSON.stringify(workflow)).digest('hex'),
			};
		})
		.filter(({ file, hash }) => !options.keepUnchanged || imported[file] !== hash);
	if (toImport.length === 0) return [];
	await importWorkflows(
		target,
		toImport.map(({ workflow }) => workflow),
	);
	for (const { file, hash } of toImport) imported[file] = hash;
	fs.writeFileSync(stateFile, JSON.stringify(imported, null, 2));
	return toImport.map(({ workflow }) => workflow.name);
}

/**
 * Activates the workflows that start with a Messaging Trigger, as the editor's toggle does, so their
 * production webhook receives delivery events; and those that wait for an answer, so their production webhook
 * can start them. Imports always arrive inactive.
 */
export async function activateTriggerExamples(
	client: N8nRestClient,
	examples: Example[],
): Promise<string[]> {
	const activated: string[] = [];
	for (const example of examples.filter(
		(candidate) => startsWithMessagingTrigger(candidate) || waitsForAnswer(candidate),
	)) {
		const workflow = await client.get<{ active: boolean; name: string }>(
			`/rest/workflows/${example.workflow.id}`,
		);
		if (workflow.active) continue;
		await client.activateWorkflow(example.workflow.id);
		activated.push(workflow.name);
	}
	return activated;
}
