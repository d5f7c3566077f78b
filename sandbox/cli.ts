import { readFileSync } from 'node:fs';
import { lifecycleFromEnv, webhooksFromEnv } from './cli-options';
import { startSandbox, type FaultRule } from './index';

const DEFAULT_PORT = 4010;

async function main(): Promise<void> {
	const port = Number(process.env.SANDBOX_PORT ?? DEFAULT_PORT);
	const host = process.env.SANDBOX_HOST ?? '127.0.0.1';
	if (!Number.isInteger(port) || port < 0 || port > 65535) {
		throw new Error(`SANDBOX_PORT must be a port number, got '${process.env.SANDBOX_PORT}'`);
	}

	const faults = readFaultsFile(process.env.SANDBOX_FAULTS_FILE);

	const lifecycle = lifecycleFromEnv(process.env);
	const webhooks = webhooksFromEnv(process.env);
	let sandbox;
	try {
		sandbox = await startSandbox({
			port,
			host,
			quiet: false,
			lifecycle,
			webhooks,
			faults,
		});
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
			process.stderr.write(
				`Port ${port} on ${host} is already in use: stop what runs there, or pick another port with SANDBOX_PORT=4011 npm run sandbox\n`,
			);
			process.exit(1);
		}
		throw error;
	}

	process.stdout.write(
		[
			'Messaging API sandbox running',
			`  base URL        ${sandbox.url}`,
			`  API key         ${sandbox.apiKey}`,
			`  signing secret  ${sandbox.signingSecret}`,
			`  admin           ${sandbox.url}/__admin (see sandbox/README.md)`,
			`  lifecycle       ${'mode' in lifecycle ? `realistic ${JSON.stringify(lifecycle)}` : `fixed steps of ${lifecycle.stepDelayMs} ms (SANDBOX_LIFECYCLE=realistic for spread delays)`}`,
			`  webhooks        ${webhooks.batch ? `up to ${webhooks.batch.maxEvents} events per POST` : 'one event per POST'}, at most ${webhooks.maxConcurrent ?? 100} in flight`,
			'Ctrl+C to stop.',
			'',
		].join('\n'),
	);

	const stop = (signal: string) => {
		process.stdout.write(`\n${signal}: stopping the sandbox\n`);
		sandbox.close().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.once('SIGINT', () => stop('SIGINT'));
	process.once('SIGTERM', () => stop('SIGTERM'));
}

function readFaultsFile(path: string | undefined): FaultRule[] {
	if (path === undefined || path === '') return [];
	const rules: unknown = JSON.parse(readFileSync(path, 'utf8'));
	if (!Array.isArray(rules))
		throw new Error(`SANDBOX_FAULTS_FILE ${path} must hold a JSON array of fault rules`);
	return rules as FaultRule[];
}

main().catch((error: unknown) => {
	process.stderr.write(
		`The sandbox could not start: ${error instanceof Error ? error.message : String(error)}\n`,
	);
	process.exit(1);
});
