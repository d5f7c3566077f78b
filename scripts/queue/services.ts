import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { runCommandOrThrow } from '../lib/command';
import { findFreePort, LOOPBACK } from '../lib/ports';
import { lastLines, spawnInOwnGroup, type BackgroundProcess } from '../lib/process-group';
import type { ServiceBinaries } from './debian-packages';

export interface QueueServices {
	redis: { host: string; port: number };
	postgres: { host: string; port: number; database: string; user: string; dataDir: string };
	stop(): Promise<void>;
}

const DATABASE = 'n8n';
const POSTGRES_USER = 'postgres';

async function waitForPort(
	port: number,
	what: string,
	child: BackgroundProcess,
	logFile: string,
): Promise<void> {
	const deadline = Date.now() + 60_000;
	while (Date.now() < deadline) {
		if (child.hasExited())
			throw new Error(
				`${what} exited while starting. Last lines of ${logFile}:\n${lastLines(logFile, 15)}`,
			);
		const open = await new Promise<boolean>((resolve) => {
			const socket = net.connect(port, LOOPBACK, () => {
				socket.end();
				resolve(true);
			});
			socket.once('error', () => resolve(false));
		});
		if (open) return;
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
	throw new Error(
		`${what} did not listen on ${port} within 60 s. Last lines of ${logFile}:\n${lastLines(logFile, 15)}`,
	);
}

/** Whether every folder above `dir` lets other users through (the `postgres` user must reach its data). */
function reachableByOtherUsers(dir: string): boolean {
	for (let current = path.dirname(path.resolve(dir)); ; current = path.dirname(current)) {
		if ((fs.statSync(current).mode & 0o001) === 0) return false;
		if (path.dirname(current) === current) return true;
	}
}

/**
 * The cluster goes under `preferred` (in .cache/) when the `postgres` user can reach it there. A checkout inside a
 * private folder (mktemp's, a home directory) cannot be reached, so the cluster then lives in the system's temp
 * folder under the same name, with only its data there.
 */
function postgresDataDir(preferred: string): string {
	if (process.getuid?.() !== 0 || reachableByOtherUsers(preferred)) return preferred;
	return path.join(
		os.tmpdir(),
		`n8n-nodes-messaging-postgres-${path.basename(path.dirname(preferred))}`,
	);
}

/** PostgreSQL refuses to run as root: as root, its programs run as Debian's `postgres` user. */
function asPostgresUser(program: string, args: string[]): [string, string[]] {
	return process.getuid?.() === 0
		? ['runuser', ['-u', POSTGRES_USER, '--', program, ...args]]
		: [program, args];
}

async function startPostgres(
	bin: string,
	preferredDir: string,
	log: string,
): Promise<{ process: BackgroundProcess; port: number; dataDir: string }> {
	const dataDir = postgresDataDir(preferredDir);
	const cluster = path.join(dataDir, 'cluster');
	const sockets = path.join(dataDir, 'sockets');
	const fresh = !fs.existsSync(path.join(cluster, 'PG_VERSION'));
	fs.mkdirSync(sockets, { recursive: true });
	if (process.getuid?.() === 0)
		await runCommandOrThrow('chown', ['-R', `${POSTGRES_USER}:`, dataDir]);
	if (fresh) {
		const [program, args] = asPostgresUser(path.join(bin, 'initdb'), [
			'-D',
			cluster,
			'-U',
			POSTGRES_USER,
			'--auth=trust',
			'-E',
			'UTF8',
		]);
		await runCommandOrThrow(program, args, { cwd: dataDir, logFile: log });
	}
	const port = await findFreePort();
	const [program, args] = asPostgresUser(path.join(bin, 'postgres'), [
		'-D',
		cluster,
		'-p',
		String(port),
		'-k',
		sockets,
		'-c',
		`listen_addresses=${LOOPBACK}`,
		'-c',
		'max_connections=200',
		'-c',
		'fsync=off',
	]);
	const child = spawnInOwnGroup(program, args, { cwd: dataDir, env: process.env, logFile: log });
	await waitForPort(port, 'PostgreSQL', child, log);
	const [createdb, createArgs] = asPostgresUser(path.join(bin, 'createdb'), [
		'-h',
		LOOPBACK,
		'-p',
		String(port),
		'-U',
		POSTGRES_USER,
		DATABASE,
	]);
	if (fresh) await runCommandOrThrow(createdb, createArgs, { cwd: dataDir, logFile: log });
	return { process: child, port, dataDir };
}

async function startRedis(
	redisServer: string,
	dataDir: string,
	log: string,
): Promise<{ process: BackgroundProcess; port: number }> {
	fs.mkdirSync(dataDir, { recursive: true });
	const port = await findFreePort();
	const child = spawnInOwnGroup(
		redisServer,
		[
			'--port',
			String(port),
			'--bind',
			LOOPBACK,
			'--dir',
			dataDir,
			'--save',
			'',
			'--appendonly',
			'no',
			'--protected-mode',
			'yes',
		],
		{ cwd: dataDir, env: process.env, logFile: log },
	);
	await waitForPort(port, 'Redis', child, log);
	return { process: child, port };
}

/**
 * Redis and PostgreSQL as local processes on free loopback ports, data under `dataDir`. The database survives a
 * restart of the stack (queue mode keeps workflows and credentials there); Redis holds only the queue.
 */
export async function startQueueServices(
	binaries: ServiceBinaries,
	dataDir: string,
): Promise<QueueServices> {
	fs.mkdirSync(dataDir, { recursive: true });
	const redis = await startRedis(
		binaries.redisServer,
		path.join(dataDir, 'redis'),
		path.join(dataDir, 'redis.log'),
	);
	let postgres: Awaited<ReturnType<typeof startPostgres>>;
	try {
		postgres = await startPostgres(
			binaries.postgresBin,
			path.join(dataDir, 'postgres'),
			path.join(dataDir, 'postgres.log'),
		);
	} catch (error) {
		await redis.process.stop(5_000);
		throw error;
	}
	return {
		redis: { host: LOOPBACK, port: redis.port },
		postgres: {
			host: LOOPBACK,
			port: postgres.port,
			database: DATABASE,
			user: POSTGRES_USER,
			dataDir: postgres.dataDir,
		},
		async stop() {
			await postgres.process.stop(15_000);
			await redis.process.stop(5_000);
		},
	};
}

/** Runs one SQL statement on the stack's database as its owner; answers psql's unaligned output. */
export async function runSql(
	postgres: QueueServices['postgres'],
	statement: string,
): Promise<string> {
	const { host, port, user, database } = postgres;
	const args = ['-h', host, '-p', String(port), '-U', user, '-d', database, '-At', '-c', statement];
	const result = await runCommandOrThrow('psql', args);
	return result.stdout.trim();
}
