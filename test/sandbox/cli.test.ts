import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { startSandbox } from '../../sandbox';

const ROOT = join(__dirname, '..', '..');

function startCli(port: number): {
	child: ChildProcess;
	output: () => string;
	exited: Promise<number | null>;
} {
	let output = '';
	// tsx's loader in one process, not its CLI: the CLI relays SIGTERM to its child and, when the child has not
	// reported it within 30 ms (a loaded machine), SIGKILLs the child and exits 143.
	const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts'], {
		cwd: ROOT,
		env: { ...process.env, SANDBOX_PORT: String(port), SANDBOX_HOST: '127.0.0.1' },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
	child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
	const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
	return { child, output: () => output, exited };
}

async function waitForOutput(
	output: () => string,
	pattern: RegExp,
	timeoutMs = 20_000,
): Promise<RegExpMatchArray> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const match = output().match(pattern);
		if (match) return match;
		if (Date.now() > deadline) throw new Error(`no ${pattern} in cli output:\n${output()}`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

describe('npm run sandbox (sandbox/cli.ts)', () => {
	it('prints the URL, key, secret and admin URL, serves, and stops cleanly on SIGTERM', async () => {
		const cli = startCli(0);
		try {
			const [, url] = await waitForOutput(cli.output, /base URL\s+(http:\/\/127\.0\.0\.1:\d+)/);
			expect(cli.output()).toContain('sk_sandbox_2f7c1e9a4b6d');
			expect(cli.output()).toContain('whsec_sandbox_8d3b6a0f5e7c');
			expect(cli.output()).toContain(`${url}/__admin`);

			const health = await fetch(`${url}/__admin/health`);
			expect(health.status).toBe(200);
			const send = await fetch(`${url}/v1/sms/send`, {
				method: 'POST',
				headers: { Authorization: 'Bearer sk_sandbox_2f7c1e9a4b6d' },
			});
			expect(send.status).toBe(400);
			await waitForOutput(cli.output, /POST \/v1\/sms\/send -> 400/);
			expect(cli.output().split('sk_sandbox_2f7c1e9a4b6d')).toHaveLength(2);

			cli.child.kill('SIGTERM');
			expect(await cli.exited).toBe(0);
		} finally {
			cli.child.kill('SIGKILL');
		}
	});

	it('says clearly when the port is taken', async () => {
		const sandbox = await startSandbox();
		try {
			const cli = startCli(sandbox.port);
			expect(await cli.exited).toBe(1);
			expect(cli.output()).toContain(`Port ${sandbox.port} on 127.0.0.1 is already in use`);
		} finally {
			await sandbox.close();
		}
	});
});
