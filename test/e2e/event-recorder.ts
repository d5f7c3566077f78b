import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { LOOPBACK } from '../../scripts/lib/ports';

/**
 * What the burst workflows' last node posts to: one `{ event_id }` per execution that ran, by source, so the
 * load test can count runs per event without reading thousands of executions back from n8n. A node that runs
 * once per execution posts `{ event_ids: [...] }` instead: every item of the execution in one request.
 */
export class EventRecorder {
	private readonly runs = new Map<string, Map<string, number>>();
	private readonly lastRunAt = new Map<string, number>();
	private readonly posts = new Map<string, number>();
	private server?: Server;
	url = '';

	async start(): Promise<void> {
		this.server = createServer((request, response) => {
			const chunks: Buffer[] = [];
			request.on('data', (chunk: Buffer) => chunks.push(chunk));
			request.on('end', () => {
				const source = (request.url ?? '').split('/').pop() ?? '';
				const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
					event_id?: unknown;
					event_ids?: unknown[];
				};
				this.record(source, (body.event_ids ?? [body.event_id]).map(String));
				response.statusCode = 204;
				response.end();
			});
		});
		await new Promise<void>((resolve) => this.server!.listen(0, LOOPBACK, resolve));
		this.url = `http://${LOOPBACK}:${(this.server.address() as AddressInfo).port}`;
	}

	/** One execution of the source that ran `eventIds`, at `at` (when it posted, or when n8n stopped it). */
	record(source: string, eventIds: string[], at = Date.now()): void {
		const counts = this.runs.get(source) ?? new Map<string, number>();
		for (const eventId of eventIds) counts.set(eventId, (counts.get(eventId) ?? 0) + 1);
		this.runs.set(source, counts);
		this.posts.set(source, (this.posts.get(source) ?? 0) + 1);
		this.lastRunAt.set(source, Math.max(at, this.lastRunAt.get(source) ?? at));
	}

	urlFor(source: string): string {
		return `${this.url}/record/${source}`;
	}

	/** Runs per event id of one source. */
	runsOf(source: string): Map<string, number> {
		return this.runs.get(source) ?? new Map();
	}

	/** Requests the source's workflows made: its executions, when the recording node runs once per execution. */
	postsOf(source: string): number {
		return this.posts.get(source) ?? 0;
	}

	lastRunOf(source: string): number | undefined {
		return this.lastRunAt.get(source);
	}

	async stop(): Promise<void> {
		await new Promise<void>((resolve) =>
			this.server ? this.server.close(() => resolve()) : resolve(),
		);
	}
}
