import fs from 'node:fs';
import path from 'node:path';

import { runCommand, runCommandOrThrow } from '../lib/command';

export interface ServiceBinaries {
	redisServer: string;
	/** Folder of PostgreSQL's server programs (initdb, postgres, createdb, pg_isready). */
	postgresBin: string;
}

async function onPath(program: string): Promise<string | undefined> {
	const found = await runCommand('sh', ['-c', `command -v ${program}`]);
	return found.code === 0 ? found.stdout.trim().split('\n')[0] : undefined;
}

/** Debian keeps initdb and postgres off PATH, under /usr/lib/postgresql/<major>/bin; the newest major wins. */
function postgresBinFolder(): string | undefined {
	const root = '/usr/lib/postgresql';
	if (!fs.existsSync(root)) return undefined;
	const majors = fs
		.readdirSync(root)
		.filter((name) => /^\d+$/.test(name))
		.sort((a, b) => Number(b) - Number(a));
	const folder = majors
		.map((major) => path.join(root, major, 'bin'))
		.find((bin) => fs.existsSync(path.join(bin, 'initdb')));
	return folder;
}

async function findBinaries(): Promise<Partial<ServiceBinaries>> {
	return { redisServer: await onPath('redis-server'), postgresBin: postgresBinFolder() };
}

/**
 * Redis and PostgreSQL from Debian's packages, as n8n's queue mode needs them. CI runs as root on a fresh
 * machine and installs them on the spot; elsewhere the message says what to run. Only the packages are system-wide:
 * the servers run as this script's children with their data under .cache/.
 */
export async function ensureQueueServices(log: (line: string) => void): Promise<ServiceBinaries> {
	const found = await findBinaries();
	if (found.redisServer && found.postgresBin) return found as ServiceBinaries;
	const missing = [
		found.redisServer ? '' : 'redis-server',
		found.postgresBin ? '' : 'postgresql',
	].filter(Boolean);
	if (process.getuid?.() !== 0) {
		throw new Error(
			`Queue mode needs ${missing.join(' and ')}: sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}`,
		);
	}
	log(`Installing ${missing.join(' and ')} from Debian (apt-get, first run on this machine only)`);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	await runCommandOrThrow('apt-get', ['update'], { env, timeoutMs: 300_000 });
	await runCommandOrThrow('apt-get', ['install', '-y', ...missing], { env, timeoutMs: 600_000 });
	const installed = await findBinaries();
	if (!installed.redisServer || !installed.postgresBin)
		throw new Error(
			`apt-get installed ${missing.join(' ')}, but the programs are not where Debian puts them.`,
		);
	return installed as ServiceBinaries;
}
