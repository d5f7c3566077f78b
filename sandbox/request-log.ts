import type { RecordedRequest } from './types';

const MAX_RECORDED_REQUESTS = 100_000;

/** Every API request, accepted or rejected, in arrival order; bounded so long benchmarks stay flat. */
export class RequestLog {
	private entries: RecordedRequest[] = [];

	add(entry: RecordedRequest): void {
		this.entries.push(entry);
		if (this.entries.length > MAX_RECORDED_REQUESTS)
			this.entries.splice(0, this.entries.length - MAX_RECORDED_REQUESTS);
	}

	list(): RecordedRequest[] {
		return structuredClone(this.entries);
	}

	clear(): void {
		this.entries = [];
	}
}
