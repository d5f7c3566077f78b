import fs from 'node:fs';
import path from 'node:path';

import { runCommand } from '../../scripts/lib/command';
import { NODE24_BIN, REPO_ROOT } from '../../scripts/n8n/paths';
import type { E2eContext } from './context';
import { assert, assertEqual, type CheckRunner } from './harness';

/**
 * Loads every file the package declares to n8n, in a bare Node 24 whose working directory is the
 * installed package, and reports where each third-party module resolved from.
 */
const PROBE = `
const path = require('path');
const manifest = require('./package.json');
const declared = [...manifest.n8n.nodes, ...manifest.n8n.credentials];
const before = new Set(Object.keys(require.cache));
for (const file of declared) require(path.resolve(file));
const loaded = Object.keys(require.cache).filter((file) => !before.has(file));
process.stdout.write(JSON.stringify({ declared, loaded, zod: require.resolve('zod/v3', { paths: [process.cwd()] }) }));
`;

export async function checkInstalledPackage(
	context: E2eContext,
	runner: CheckRunner,
): Promise<void> {
	await runner.check(
		'npm installed the packed tarball into <N8N_USER_FOLDER>/.n8n/nodes, dist only',
		() => {
			const manifest = JSON.parse(
				fs.readFileSync(path.join(context.installedPackageDir, 'package.json'), 'utf8'),
			);
			assertEqual(manifest.name, 'n8n-nodes-messaging', 'installed package name');
			const shipped = fs.readdirSync(context.installedPackageDir).sort();
			for (const entry of shipped) {
				assert(
					['dist', 'package.json', 'README.md', 'LICENSE', 'node_modules'].includes(entry),
					`unexpected entry "${entry}" shipped in the package`,
				);
			}
			assert(
				!fs.existsSync(path.join(context.installedPackageDir, 'dist', 'sandbox')),
				'the sandbox must not be shipped',
			);
			assert(
				!fs.existsSync(path.join(context.installedPackageDir, 'dist', 'scripts')),
				'the scripts (the model double among them) must not be shipped',
			);
		},
	);

	await runner.check(
		'every declared node and credential loads from the installed package, zod/v3 resolved there',
		async () => {
			const result = await runCommand(NODE24_BIN, ['-e', PROBE], {
				cwd: context.installedPackageDir,
				env: { PATH: process.env.PATH },
			});
			assertEqual(
				result.code,
				0,
				`loading the installed package (stderr: ${result.stderr.slice(0, 400)})`,
			);
			const { declared, loaded, zod } = JSON.parse(result.stdout) as {
				declared: string[];
				loaded: string[];
				zod: string;
			};
			assert(declared.length >= 2, `the package declares ${declared.length} files to n8n`);
			const nodesDir = path.dirname(path.dirname(context.installedPackageDir));
			assert(zod.startsWith(nodesDir), `zod resolved to ${zod}, outside ${nodesDir}`);
			const fromSourceTree = loaded.filter((file) => file.startsWith(`${REPO_ROOT}${path.sep}`));
			assertEqual(
				fromSourceTree,
				[],
				'modules loaded from the source tree instead of the installed package',
			);
			assert(
				loaded.some((file) => file.includes(`${path.sep}zod${path.sep}v3${path.sep}`)),
				"the built node should load zod's v3 API (zod/v3) at run time",
			);
		},
	);

	await runner.check(
		'n8n lists the node and credential types of the installed package',
		async () => {
			const nodeTypes =
				await context.rest.get<Array<{ name: string; credentials?: Array<{ name: string }> }>>(
					'/types/nodes.json',
				);
			const messaging = nodeTypes.find((type) => type.name === 'n8n-nodes-messaging.messaging');
			assert(messaging, 'n8n-nodes-messaging.messaging is missing from /types/nodes.json');
			assertEqual(
				messaging.credentials?.map((credential) => credential.name),
				['messagingApi'],
				'Messaging node credentials',
			);
			assert(
				nodeTypes.some((type) => type.name === 'n8n-nodes-messaging.messagingTrigger'),
				'n8n-nodes-messaging.messagingTrigger is missing',
			);
			const credentialTypes =
				await context.rest.get<Array<{ name: string }>>('/types/credentials.json');
			for (const name of ['messagingApi', 'messagingWebhookApi']) {
				assert(
					credentialTypes.some((type) => type.name === name),
					`credential type ${name} is missing from /types/credentials.json`,
				);
			}
		},
	);
}
