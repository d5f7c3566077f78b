import net from 'node:net';

export const LOOPBACK = '127.0.0.1';

export class PortTakenError extends Error {}

function tryListen(port: number): Promise<net.Server> {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once('error', reject);
		server.listen(port, LOOPBACK, () => resolve(server));
	});
}

function close(server: net.Server): Promise<void> {
	return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Ports handed out in this process. A port is free only until its server binds it, and a stack keeps its ports while
 * a process restarts: the OS may offer one again meanwhile, and a task broker given a worker's port left that worker
 * without its health server (a CI run of test:queue: "Port … is already in use", one worker ran nothing).
 */
const handedOut = new Set<number>();

export async function findFreePort(): Promise<number> {
	for (;;) {
		const server = await tryListen(0);
		const { port } = server.address() as net.AddressInfo;
		await close(server);
		if (handedOut.has(port)) continue;
		handedOut.add(port);
		return port;
	}
}

/** Fails early with the env var that picks another port, instead of a stack trace from deep inside n8n. */
export async function assertPortFree(port: number, what: string, envVar: string): Promise<void> {
	try {
		await close(await tryListen(port));
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
			throw new PortTakenError(
				`Port ${port} for ${what} is already in use. Stop whatever uses it, or pick another port: ${envVar}=<port> npm start`,
			);
		}
		throw error;
	}
}

export function readPortFromEnv(envVar: string, fallback: number): number {
	const raw = process.env[envVar];
	if (raw === undefined || raw === '') return fallback;
	const port = Number(raw);
	if (!Number.isInteger(port) || port < 1 || port > 65535) {
		throw new Error(`${envVar}=${raw} is not a port number (1-65535).`);
	}
	return port;
}
