import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { runCommand, type CommandResult } from '../../../scripts/lib/command';
import { PROJECT_BIN_DIR, REPO_ROOT } from '../../../scripts/n8n/paths';

/** Each run loads ESLint and n8n's rule sets; the source leg lints every node file. */
const SCAN_TIMEOUT_MS = 180_000;

let workDir: string;

beforeAll(() => {
	workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-test-'));
});

afterAll(() => {
	fs.rmSync(workDir, { recursive: true, force: true });
});

async function scan(args: string[]): Promise<CommandResult & { output: string }> {
	const result = await runCommand(
		path.join(PROJECT_BIN_DIR, 'tsx'),
		[path.join(REPO_ROOT, 'scripts', 'scan', 'run.ts'), ...args],
		{ cwd: REPO_ROOT, timeoutMs: SCAN_TIMEOUT_MS },
	);
	return { ...result, output: `${result.stdout}\n${result.stderr}` };
}

/** What the scanner's source leg reads: package.json, nodes/ and credentials/, copied so a plant stays out of the tree. */
function copyOfSource(name: string): string {
	const copy = path.join(workDir, name);
	fs.mkdirSync(copy);
	for (const entry of ['package.json', 'nodes', 'credentials']) {
		fs.cpSync(path.join(REPO_ROOT, entry), path.join(copy, entry), { recursive: true });
	}
	return copy;
}

/** An unpacked package as the tarball leg sees it: its package.json and one compiled node file. */
function unpackedPackage(name: string, nodeFileBody: string): string {
	const dir = path.join(workDir, name);
	const nodeDir = path.join(dir, 'dist', 'nodes', 'Messaging');
	fs.mkdirSync(nodeDir, { recursive: true });
	fs.copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(dir, 'package.json'));
	fs.writeFileSync(path.join(nodeDir, 'Messaging.node.js'), nodeFileBody);
	return dir;
}

const COMPILED_NODE = `"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.Messaging = void 0;
const n8n_workflow_1 = require("n8n-workflow");
class Messaging {
    async execute() {
        await (0, n8n_workflow_1.sleep)(1);
        return [this.getInputData()];
    }
}
exports.Messaging = Messaging;
`;

test(
	'a setTimeout planted in the node file fails the source leg, naming the rule and the file',
	async () => {
		const source = copyOfSource('planted-global');
		const nodeFile = path.join(source, 'nodes', 'Messaging', 'Messaging.node.ts');
		fs.appendFileSync(nodeFile, '\nexport const planted = () => setTimeout(() => undefined, 1);\n');

		const result = await scan(['--source', source]);

		expect(result.code).toBe(1);
		expect(result.output).toContain('nodes/Messaging/Messaging.node.ts');
		expect(result.output).toMatch(/restricted global 'setTimeout'.*no-restricted-globals/);
		expect(result.output).toContain('0 passed, 1 failed');
	},
	SCAN_TIMEOUT_MS,
);

test(
	'a child_process import planted in a compiled node file fails the tarball leg; the same file without it passes',
	async () => {
		const clean = unpackedPackage('clean-package', COMPILED_NODE);
		const planted = unpackedPackage(
			'planted-import',
			COMPILED_NODE.replace(
				'const n8n_workflow_1',
				'const child_process_1 = require("child_process");\nexports.run = child_process_1.execSync;\nconst n8n_workflow_1',
			),
		);

		const result = await scan(['--unpacked', clean, '--unpacked', planted]);

		expect(result.output).toMatch(/✓ scanner, tarball leg: .*clean-package/);
		expect(result.output).toMatch(/✗ scanner, tarball leg: .*planted-import/);
		expect(result.output).toMatch(/'child_process'.*no-restricted-imports/);
		expect(result.output).toContain('1 passed, 1 failed');
		expect(result.code).toBe(1);
	},
	SCAN_TIMEOUT_MS,
);
