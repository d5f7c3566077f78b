import { startSandbox } from '../../sandbox';
import type { Sandbox } from '../../sandbox';

/**
 * One in-process sandbox per test file on a random loopback port, requests cleared per test. The status
 * lifecycle is off: callback URLs in these tests are examples, and delivery events must not leave loopback.
 */
export function useSandbox(): () => Sandbox {
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, lifecycle: null });
	});
	afterAll(async () => {
		await sandbox?.close();
	});
	beforeEach(() => {
		sandbox?.clearRequests();
		sandbox?.configure({ rateLimit: null, latency: null });
		sandbox?.clearFaults();
	});
	return () => {
		if (!sandbox) throw new Error('The sandbox is not running');
		return sandbox;
	};
}

export function formFields(rawBody: string): Record<string, string> {
	return Object.fromEntries(new URLSearchParams(rawBody));
}
