import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'compat-versions-'));
process.env.MESSAGING_N8N_CACHE = cacheRoot;
// Required after the cache folder is set: the module reads it when loaded.
type Versions = typeof import('../../../scripts/compat/versions');
type Paths = typeof import('../../../scripts/n8n/paths');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const versions: Versions = require('../../../scripts/compat/versions');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { DEFAULT_N8N_VERSION }: Paths = require('../../../scripts/n8n/paths');

afterAll(() => fs.rmSync(cacheRoot, { recursive: true, force: true }));

/** The version table of n8n's Agent node as its compiled file writes it. */
function writeAgentNode(version: string, table: string): void {
	const dir = path.join(
		cacheRoot,
		`n8n-${version}`,
		'node_modules/@n8n/n8n-nodes-langchain/dist/nodes/agents/Agent',
	);
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(path.join(dir, 'Agent.node.js'), `const nodeVersions = {\n${table}\n};\n`);
}

test('ci picks the oldest and newest tested versions, a role or a version picks one, once', () => {
	const ci = versions.selectedVersions('ci');
	expect(ci.map((entry) => entry.role)).toEqual(['oldest', 'newest']);
	expect(versions.selectedVersions('e2e')).toEqual([
		{ version: DEFAULT_N8N_VERSION, role: 'e2e', inCi: false },
	]);
	expect(versions.selectedVersions('newest, 2.41.1').map((entry) => entry.version)).toEqual([
		versions.COMPAT_VERSIONS.find((entry) => entry.role === 'newest')!.version,
	]);
	expect(versions.selectedVersions('2.39.0')).toEqual([
		{ version: '2.39.0', role: 'untested', inCi: false },
	]);
	expect(versions.selectedVersions('')).toEqual(versions.COMPAT_VERSIONS);
	expect(() => versions.selectedVersions('latest')).toThrow(/COMPAT_ONLY names "latest"/);
});

test("the AI Agent versions are read from the installed Agent node's table; none when it is absent", () => {
	writeAgentNode(
		'9.0.0',
		[
			'            1.9: new AgentV1_node_1.AgentV1(baseDescription),',
			'            2: new AgentV2_node_1.AgentV2(baseDescription),',
			'            3.1: new AgentV3_node_1.AgentV3(baseDescription),',
		].join('\n'),
	);
	expect(versions.agentVersionsOf('9.0.0')).toEqual([1.9, 2, 3.1]);
	expect(versions.agentVersionsOf('9.0.1')).toEqual([]);
});

test("the README's table of tested n8n versions has one row per tested version, oldest and newest in CI", () => {
	const readme = fs.readFileSync(path.join(__dirname, '../../../README.md'), 'utf8');
	const section = readme.split('## Tested n8n versions')[1].split('\n## ')[0];
	const rows = [...section.matchAll(/^\| (\d+\.\d+\.\d+) +\|.*\|(.*)\|$/gm)].map(
		([, version, by]) => ({
			version,
			inCi: by.includes('(CI)'),
		}),
	);
	expect(rows.map((row) => row.version).sort()).toEqual(
		versions.COMPAT_VERSIONS.map((entry) => entry.version).sort(),
	);
	for (const entry of versions.COMPAT_VERSIONS.filter((tested) => tested.inCi))
		expect(rows.find((row) => row.version === entry.version)?.inCi).toBe(true);
});
