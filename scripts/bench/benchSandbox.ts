import type { LatencyConfig, MessageRecord, RateLimitConfig, RecordedRequest } from '../../sandbox';
import { firstJsonLine, spawnTypeScript, waitForExit } from './childProcess';

export interface BenchSandbox {
	url: string;
	apiKey: string;
	configure(config: {
		latency: LatencyConfig | null;
		rateLimit: RateLimitConfig | null;
	}): Promise<void>;
	/**
	 * Forgets the requests and messages of earlier runs: what the sandbox holds grows its heap and every request's cost
	 * (its CPU per case doubled once it held 100,000 and more), which weighed on later runs only.
	 */
	clearHistory(): Promise<void>;
	requests(): Promise<RecordedRequest[]>;
	messages(): Promise<MessageRecord[]>;
	stop(): Promise<void>;
}

/** Starts the sandbox in a child process and drives it through its admin HTTP endpoints. */
export async function startBenchSandbox(): Promise<BenchSandbox> {
	const child = spawnTypeScript('sandboxProcess.ts');
	const stop = async () => {
		child.stdin.end();
		await waitForExit(child, 5000);
	};
	let announced: { url: string; apiKey: string };
	try {
		announced = await firstJsonLine<{ url: string; apiKey: string }>(
			child,
			30_000,
			'The benchmark sandbox',
		);
	} catch (error) {
		await stop();
		throw error;
	}

	const admin = async (method: string, path: string, body?: unknown): Promise<unknown> => {
		const response = await fetch(`${announced.url}/__admin${path}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok)
			throw new Error(
				`Sandbox admin ${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`,
			);
		return text ? JSON.parse(text) : undefined;
	};

	return {
		...announced,
		configure: async (config) => {
			await admin('PUT', '/config', config);
		},
		clearHistory: async () => {
			await admin('DELETE', '/requests');
			await admin('DELETE', '/messages');
		},
		requests: async () => (await admin('GET', '/requests')) as RecordedRequest[],
		messages: async () => (await admin('GET', '/messages')) as MessageRecord[],
		stop,
	};
}
