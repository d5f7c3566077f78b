import fs from 'node:fs';
import path from 'node:path';

import { runCommandOrThrow } from '../lib/command';
import {
	N8N_BIN,
	N8N_INSTALL_DIR,
	N8N_VERSION,
	NODE24_BIN,
	NODE24_DIR,
	pathWithNode24,
} from './paths';

const MARKER = path.join(N8N_INSTALL_DIR, '.install-complete');
const LOG_FILE = path.join(N8N_INSTALL_DIR, 'install.log');

/** Native addons n8n needs at run time; npm's install scripts are skipped, so they are built here against Node 24's headers. */
const NATIVE_ADDONS = ['sqlite3', 'isolated-vm'];

export function isN8nInstalled(): boolean {
	return (
		fs.existsSync(MARKER) &&
		fs.readFileSync(MARKER, 'utf8').trim() === N8N_VERSION &&
		fs.existsSync(N8N_BIN)
	);
}

/**
 * Installs n8n into the project's cache folder on first use. The marker is written last, so an install
 * interrupted half-way is simply redone by the next run.
 */
export async function ensureN8nInstalled(log: (line: string) => void = console.log): Promise<void> {
	if (isN8nInstalled()) return;
	if (!fs.existsSync(NODE24_BIN)) {
		throw new Error(`Node 24 is missing at ${NODE24_BIN}. Run the set-up first: npm run setup`);
	}
	fs.mkdirSync(N8N_INSTALL_DIR, { recursive: true });
	fs.writeFileSync(
		path.join(N8N_INSTALL_DIR, 'package.json'),
		JSON.stringify(
			{ name: 'n8n-runtime', private: true, description: 'n8n used by npm start, demo and e2e' },
			null,
			2,
		),
	);
	const env = { ...process.env, PATH: pathWithNode24(), npm_config_nodedir: NODE24_DIR };
	const started = Date.now();
	log(
		`Installing n8n ${N8N_VERSION} into ${path.relative(process.cwd(), N8N_INSTALL_DIR) || N8N_INSTALL_DIR} (first run only, a few minutes; log: ${LOG_FILE})`,
	);
	await runCommandOrThrow(
		'npm',
		['install', '--ignore-scripts', '--no-audit', '--no-fund', `n8n@${N8N_VERSION}`],
		{
			cwd: N8N_INSTALL_DIR,
			env,
			logFile: LOG_FILE,
		},
	);
	log(`Building native addons (${NATIVE_ADDONS.join(', ')}) for Node 24`);
	await runCommandOrThrow('npm', ['rebuild', ...NATIVE_ADDONS], {
		cwd: N8N_INSTALL_DIR,
		env,
		logFile: LOG_FILE,
	});
	const version = await runCommandOrThrow(NODE24_BIN, [N8N_BIN, '--version'], {
		cwd: N8N_INSTALL_DIR,
		env,
	});
	if (version.stdout.trim() !== N8N_VERSION) {
		throw new Error(
			`Installed n8n reports version "${version.stdout.trim()}", expected ${N8N_VERSION}.`,
		);
	}
	fs.writeFileSync(MARKER, `${N8N_VERSION}\n`);
	log(`n8n ${N8N_VERSION} installed in ${Math.round((Date.now() - started) / 1000)} s`);
}
