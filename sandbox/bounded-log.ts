/**
 * Entries in arrival order, the newest `capacity` kept, so long benchmarks stay flat. Past it the oldest go a tenth of
 * it at a time: dropping one per entry shifted the whole log on every entry, and a long benchmark's sandbox took over
 * twice the CPU once its request log held 100,000.
 */
export class BoundedLog<Entry> {
	private entries: Entry[] = [];

	constructor(private readonly capacity: number) {}

	add(entry: Entry): void {
		this.entries.push(entry);
		if (this.entries.length > this.capacity * 1.1)
			this.entries = this.entries.slice(-this.capacity);
	}

	/** A copy of the newest `capacity` entries, oldest first. */
	list(): Entry[] {
		return structuredClone(this.entries.slice(-this.capacity));
	}

	/** Entries held in memory: never more than the capacity and a tenth. */
	held(): number {
		return this.entries.length;
	}

	clear(): void {
		this.entries = [];
	}
}
