import type { Script } from './conversation';
import type { RecordedModelRequest } from './server';

/** A client for the model double's admin endpoints: the script it plays and the requests it received. */
export class ModelDoubleAdmin {
	constructor(readonly baseUrl: string) {}

	async requests(): Promise<RecordedModelRequest[]> {
		return ((await this.call('GET', '/__admin/requests')) as { requests: RecordedModelRequest[] })
			.requests;
	}

	async clearRequests(): Promise<void> {
		await this.call('DELETE', '/__admin/requests');
	}

	async play(script: Script): Promise<void> {
		await this.call('PUT', '/__admin/script', script);
	}

	/** Back to the echo assistant: answers the last user message and names the earlier ones. */
	async echo(): Promise<void> {
		await this.call('DELETE', '/__admin/script');
	}

	private async call(method: string, path: string, body?: unknown): Promise<unknown> {
		const response = await fetch(`${this.baseUrl}${path}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		if (!response.ok)
			throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
		return response.json();
	}
}
