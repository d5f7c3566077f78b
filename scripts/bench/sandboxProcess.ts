import { startSandbox } from '../../sandbox';

/**
 * The sandbox in its own process, so its request handling does not compete for the event loop and
 * CPU of the process being measured. Announces its URL as one JSON line on stdout; stops when the
 * parent closes stdin, so an aborted benchmark never leaves it listening.
 */
async function main(): Promise<void> {
	const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', quiet: true, lifecycle: null });
	process.stdout.write(`${JSON.stringify({ url: sandbox.url, apiKey: sandbox.apiKey })}\n`);
	const stop = () => {
		sandbox.close().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.stdin.on('end', stop);
	process.stdin.resume();
	process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
	process.stderr.write(
		`The benchmark sandbox could not start: ${error instanceof Error ? error.message : String(error)}\n`,
	);
	process.exit(1);
});
