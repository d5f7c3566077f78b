import fs from 'node:fs';
import path from 'node:path';

import { runCommandOrThrow } from '../lib/command';
import {
	N8N_CACHE_ROOT,
	N8N_VERSION,
	NODE24_BIN,
	NODE24_DIR,
	n8nBin,
	n8nInstallDir,
	pathWithNode24,
} from './paths';

const MARKER_NAME = '.install-complete';
const STAGING_INFIX = '.installing-';

/** Native addons n8n needs at run time; npm's install scripts are skipped, so they are built here against Node 24's headers. */
const NATIVE_ADDONS = ['sqlite3', 'isolated-vm'];

export function isN8nInstalled(version: string = N8N_VERSION): boolean {
	const marker = path.join(n8nInstallDir(version), MARKER_NAME);
	return (
		fs.existsSync(marker) &&
		fs.readFileSync(marker, 'utf8').trim() === version &&
		fs.existsSync(n8nBin(version))
	);
}

function isRunning(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** Staging folders of installs whose process died (a stopped run) would hold gigabytes for nothing. */
function removeAbandonedStaging(version: string): void {
	if (!fs.existsSync(N8N_CACHE_ROOT)) return;
	const prefix = `n8n-${version}${STAGING_INFIX}`;
	for (const name of fs.readdirSync(N8N_CACHE_ROOT)) {
		if (name.startsWith(prefix) && !isRunning(Number(name.slice(prefix.length))))
			fs.rmSync(path.join(N8N_CACHE_ROOT, name), { recursive: true, force: true });
	}
}

/**
 * Installs n8n into the machine's cache on first use. It installs into a staging folder and renames it into place
 * when complete, so an interrupted install is redone by the next run and two clones installing the same version at
 * once never see each other's half.
 */
export async function ensureN8nInstalled(
	log: (line: string) => void = console.log,
	version: string = N8N_VERSION,
): Promise<void> {
	if (isN8nInstalled(version)) return;
	if (!fs.existsSync(NODE24_BIN)) {
		throw new Error(`Node 24 is missing at ${NODE24_BIN}. Run the set-up first: npm run setup`);
	}
	removeAbandonedStaging(version);
	const target = n8nInstallDir(version);
	const staging = `${target}${STAGING_INFIX}${process.pid}`;
	const started = Date.now();
	log(
		`Installing n8n ${version} into ${target} (first run on this machine only, a few minutes; log: ${path.join(target, 'install.log')})`,
	);
	try {
		await installInto(staging, version, log);
	} catch (error) {
		const kept = `${target}.failed`;
		fs.rmSync(kept, { recursive: true, force: true });
		fs.renameSync(staging, kept);
		throw new Error(`${(error as Error).message}\nInstall folder kept: ${kept}`);
	}
	if (isN8nInstalled(version)) fs.rmSync(staging, { recursive: true, force: true });
	else {
		fs.rmSync(target, { recursive: true, force: true });
		fs.renameSync(staging, target);
	}
	log(`n8n ${version} installed in ${Math.round((Date.now() - started) / 1000)} s`);
}

async function installInto(dir: string, version: string, log: (line: string) => void) {
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(
		path.join(dir, 'package.json'),
		JSON.stringify(
			{ name: 'n8n-runtime', private: true, description: `n8n ${version} for this project's runs` },
			null,
			2,
		),
	);
	const env = { ...process.env, PATH: pathWithNode24(), npm_config_nodedir: NODE24_DIR };
	const logFile = path.join(dir, 'install.log');
	await runCommandOrThrow(
		'npm',
		['install', '--ignore-scripts', '--no-audit', '--no-fund', `n8n@${version}`],
		{ cwd: dir, env, logFile },
	);
	log(`Building native addons (${NATIVE_ADDONS.join(', ')}) for Node 24`);
	await runCommandOrThrow('npm', ['rebuild', ...NATIVE_ADDONS], { cwd: dir, env, logFile });
	const bin = path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n');
	const reported = await runCommandOrThrow(NODE24_BIN, [bin, '--version'], { cwd: dir, env });
	if (reported.stdout.trim() !== version) {
		throw new Error(
			`Installed n8n reports version "${reported.stdout.trim()}", expected ${version}.`,
		);
	}
	fs.writeFileSync(path.join(dir, MARKER_NAME), `${version}\n`);
}
