import fs from 'node:fs';
import path from 'node:path';

import { DEFAULT_N8N_VERSION, n8nInstallDir } from '../n8n/paths';

/**
 * `e2e` is the n8n the whole e2e, queue mode and the benchmarks run on (`DEFAULT_N8N_VERSION`); `untested` is a
 * version named on the command line, outside the list.
 */
export type CompatRole = 'oldest' | 'middle' | 'e2e' | 'newest' | 'untested';

export interface CompatVersion {
	version: string;
	role: CompatRole;
	/** `.ci/run` runs these; the others run with `npm run test:compat` and before a release. */
	inCi: boolean;
}

/**
 * The tested range (docs/compat.md says why): 2.35.7 is the oldest 2.x found to install from this machine's npm
 * registry (2.34.6 and 2.36.9 miss packages there, 2.33 and older too, 2.31 and older fetch one from outside it);
 * 2.41.1 is the newest that installs (2.41.3 pins packages the registry does not have). `.ci/run` runs these two;
 * 2.40.7 runs the whole e2e there (`npm run test:e2e`), of which the compat phases are a part.
 */
export const COMPAT_VERSIONS: CompatVersion[] = [
	{ version: '2.35.7', role: 'oldest', inCi: true },
	{ version: '2.38.7', role: 'middle', inCi: false },
	{ version: DEFAULT_N8N_VERSION, role: 'e2e', inCi: false },
	{ version: '2.41.1', role: 'newest', inCi: true },
];

/**
 * The e2e phases of the smoke subset: the node loads; an SMS and a WhatsApp template send with their
 * acknowledgements; signed delivery events; Send and Wait answered by its page's button; the node as an AI Agent's
 * tool; a retried event running once after a restart (last: it restarts n8n).
 */
export const COMPAT_PHASES = [
	'installed',
	'examples',
	'delivery-events',
	'send-and-wait',
	'ai-agent',
	'trigger-restart',
];

/** The AI Agent type version the e2e's agent workflows are built with. */
export const AGENT_VERSION_CHECKED = 3.1;

/**
 * `COMPAT_ONLY=oldest,newest` (a role) or `COMPAT_ONLY=2.41.1`; `ci` is what `.ci/run` runs. Unset: every tested
 * version.
 * A version outside the list may be named too, to try it.
 */
export function selectedVersions(only = process.env.COMPAT_ONLY): CompatVersion[] {
	const names = (only ?? '')
		.split(',')
		.map((name) => name.trim())
		.filter(Boolean);
	if (!names.length) return COMPAT_VERSIONS;
	const chosen = names.flatMap((name): CompatVersion[] => {
		if (name === 'ci') return COMPAT_VERSIONS.filter((entry) => entry.inCi);
		const known = COMPAT_VERSIONS.filter((entry) => entry.role === name || entry.version === name);
		if (known.length) return known;
		if (/^\d+\.\d+\.\d+$/.test(name)) return [{ version: name, role: 'untested', inCi: false }];
		throw new Error(
			`COMPAT_ONLY names "${name}": give ci, a role (oldest, middle, e2e, newest) or a version`,
		);
	});
	return [...new Map(chosen.map((entry) => [entry.version, entry])).values()];
}

/** The AI Agent type versions an installed n8n offers, read from its Agent node's version table. */
export function agentVersionsOf(version: string): number[] {
	const agentFile = path.join(
		n8nInstallDir(version),
		'node_modules/@n8n/n8n-nodes-langchain/dist/nodes/agents/Agent/Agent.node.js',
	);
	if (!fs.existsSync(agentFile)) return [];
	const source = fs.readFileSync(agentFile, 'utf8');
	return [...source.matchAll(/^\s*([\d.]+): new \w+\.AgentV\d+\(/gm)].map((match) =>
		Number(match[1]),
	);
}
