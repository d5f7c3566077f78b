/**
 * A map that keeps its `capacity` most recently used entries, so per-process state of workflows that were
 * deactivated or deleted does not accumulate for the life of the process.
 */
export class RecentlyUsedMap<Key, Value> {
	private readonly entries = new Map<Key, Value>();

	constructor(private readonly capacity: number) {}

	get(key: Key): Value | undefined {
		const value = this.entries.get(key);
		if (value !== undefined) {
			this.entries.delete(key);
			this.entries.set(key, value);
		}
		return value;
	}

	set(key: Key, value: Value): void {
		this.entries.delete(key);
		this.entries.set(key, value);
		if (this.entries.size > this.capacity)
			this.entries.delete(this.entries.keys().next().value as Key);
	}

	/** The value kept for `key`, or the one `create` makes, kept from now on. */
	getOrCreate(key: Key, create: () => Value): Value {
		const kept = this.get(key);
		if (kept !== undefined) return kept;
		const created = create();
		this.set(key, created);
		return created;
	}

	delete(key: Key): void {
		this.entries.delete(key);
	}

	get size(): number {
		return this.entries.size;
	}
}
