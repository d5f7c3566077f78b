import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { runCommandOrThrow } from '../lib/command';
import { NODE24_DIR, REPO_ROOT, pathWithNode24 } from './paths';

/** What goes into the built package: when none of it changed, the last tarball is still the right one. */
const BUILD_INPUTS = [
	'nodes',
	'credentials',
	'package.json',
	'tsconfig.json',
	'tsconfig.build.json',
	'gulpfile.js',
	'README.md',
	'LICENSE',
];

function npmEnvironment(): NodeJS.ProcessEnv {
	return { ...process.env, PATH: pathWithNode24(), npm_config_nodedir: NODE24_DIR };
}

export function hashBuildInputs(): string {
	const hash = createHash('sha256');
	const visit = (entry: string): void => {
		const full = path.join(REPO_ROOT, entry);
		if (!fs.existsSync(full)) return;
		if (fs.statSync(full).isDirectory()) {
			for (const child of fs.readdirSync(full).sort()) visit(path.join(entry, child));
			return;
		}
		hash.update(entry).update('\0').update(fs.readFileSync(full)).update('\0');
	};
	BUILD_INPUTS.forEach(visit);
	return hash.digest('hex').slice(0, 16);
}

export interface PackedPackage {
	tarball: string;
	buildHash: string;
	reused: boolean;
}

/**
 * `npm run build` then `npm pack` into `destination`. With `reuseIfUnchanged`, a tarball packed from the
 * same sources is reused, which is what keeps a second `npm start` quick.
 */
export async function buildAndPack(
	destination: string,
	options: { reuseIfUnchanged: boolean },
): Promise<PackedPackage> {
	fs.mkdirSync(destination, { recursive: true });
	const buildHash = hashBuildInputs();
	const hashFile = path.join(destination, 'build-hash');
	const tarballFile = path.join(destination, 'tarball-name');
	if (options.reuseIfUnchanged && fs.existsSync(hashFile) && fs.existsSync(tarballFile)) {
		const tarball = path.join(destination, fs.readFileSync(tarballFile, 'utf8').trim());
		if (fs.readFileSync(hashFile, 'utf8').trim() === buildHash && fs.existsSync(tarball)) {
			return { tarball, buildHash, reused: true };
		}
	}
	const env = npmEnvironment();
	await runCommandOrThrow('npm', ['run', 'build'], { cwd: REPO_ROOT, env });
	const packed = await runCommandOrThrow(
		'npm',
		['pack', '--json', '--pack-destination', destination],
		{ cwd: REPO_ROOT, env },
	);
	const [{ filename }] = JSON.parse(packed.stdout) as Array<{ filename: string }>;
	fs.writeFileSync(hashFile, `${buildHash}\n`);
	fs.writeFileSync(tarballFile, `${filename}\n`);
	return { tarball: path.join(destination, filename), buildHash, reused: false };
}

/**
 * Installs the tarball the way a user installs a community node by hand: `npm install` inside
 * `<N8N_USER_FOLDER>/.n8n/nodes`. npm brings the peer `n8n-workflow` (and its own peers) along.
 */
export async function installPackageIntoUserFolder(
	userFolder: string,
	packed: PackedPackage,
): Promise<'installed' | 'unchanged'> {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const installedHashFile = path.join(nodesDir, '.installed-build-hash');
	if (
		fs.existsSync(installedHashFile) &&
		fs.readFileSync(installedHashFile, 'utf8').trim() === packed.buildHash
	) {
		return 'unchanged';
	}
	fs.mkdirSync(nodesDir, { recursive: true });
	const manifest = path.join(nodesDir, 'package.json');
	if (!fs.existsSync(manifest)) {
		fs.writeFileSync(manifest, JSON.stringify({ name: 'installed-nodes', private: true }, null, 2));
	}
	await runCommandOrThrow('npm', ['install', '--no-audit', '--no-fund', packed.tarball], {
		cwd: nodesDir,
		env: npmEnvironment(),
		logFile: path.join(userFolder, 'npm-install-package.log'),
	});
	fs.writeFileSync(installedHashFile, `${packed.buildHash}\n`);
	return 'installed';
}

/** Packs a test fixture package (plain JS, nothing to build) and installs it beside ours, as a user would. */
export async function installFixturePackage(
	userFolder: string,
	packageDir: string,
	packDir: string,
): Promise<void> {
	fs.mkdirSync(packDir, { recursive: true });
	const env = npmEnvironment();
	const packed = await runCommandOrThrow('npm', ['pack', '--json', '--pack-destination', packDir], {
		cwd: packageDir,
		env,
	});
	const [{ filename }] = JSON.parse(packed.stdout) as Array<{ filename: string }>;
	await runCommandOrThrow(
		'npm',
		['install', '--no-audit', '--no-fund', path.join(packDir, filename)],
		{
			cwd: path.join(userFolder, '.n8n', 'nodes'),
			env,
			logFile: path.join(userFolder, 'npm-install-fixtures.log'),
		},
	);
}
