import type { RecordedRequest } from './types';

const MAX_RECORDED_REQUESTS = 100_000;

/**
 * Every API request, accepted or rejected, in arrival order; bounded so long benchmarks stay flat: past `capacity`
 * the oldest go a tenth of it at a time. Dropping one per request shifted the whole log on every request, and a
 * long benchmark's sandbox took over twice the CPU once it held 100,000.
 */
export class RequestLog {
	private entries: RecordedRequest[] = [];

	constructor(private readonly capacity: number = MAX_RECORDED_REQUESTS) {}

	add(entry: RecordedRequest): void {
		this.entries.push(entry);
		if (this.entries.length > this.capacity * 1.1)
			this.entries.splice(0, this.entries.length - this.capacity);
	}

	list(): RecordedRequest[] {
		return structuredClone(this.entries);
	}

	clear(): void {
		this.entries = [];
	}
}
