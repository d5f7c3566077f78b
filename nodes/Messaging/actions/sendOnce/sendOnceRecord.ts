import type { ProcessedValues } from '../../../shared/processedValues';

/** Enough for the two values per message of a 30,000-message campaign; a bigger run raises it for itself. */
const MIN_ENTRIES = 60_000;
/** Acknowledgements are written together: each write rewrites the node's whole record. */
const FLUSH_EVERY_MS = 500;
const FLUSH_AT = 1_000;
/**
 * A write's cost grows with the record, so a group's time grows with it: 500 ms at this many values of the run,
 * in proportion below and above, from MIN_TIME_SCALE up to MAX_GROUP_SCALE. A group's size grows past it alike,
 * never below FLUSH_AT. What a dead worker leaves unwritten is what a provider that ignores keys sends twice, so
 * groups are short; but not shorter than 250 ms: a write takes n8n's thread for milliseconds even on a small record,
 * and every 100 ms, at 1,000 messages sent at full pace, the writes cost that run 5 % (the bench's `npm run bench`).
 */
const VALUES_PER_GROUP_SCALE = 5_000;
const MIN_TIME_SCALE = 0.5;
const MAX_GROUP_SCALE = 4;

function groupScale(valuesWritten: number): number {
	return Math.min(MAX_GROUP_SCALE, valuesWritten / VALUES_PER_GROUP_SCALE);
}

/** How long a group of acknowledgements waits once the run has written this many values. */
export function groupTimeMs(valuesWritten: number): number {
	return FLUSH_EVERY_MS * Math.max(MIN_TIME_SCALE, groupScale(valuesWritten));
}

/**
 * The record of acknowledged sends. Time is kept in the acknowledgements: each names its half-window bucket, and a
 * look-up asks the current and the previous bucket, so a message counts as sent for at least half the window and
 * never longer than the window.
 *
 * Two kinds of value, because a look-up records what it asks about. A claim `c:` is written before a message is
 * sent: asking about it is harmless, and it only says whether to look further, so it carries no bucket (one value
 * per message, where the record's size is every write's cost). An acknowledgement `a:` is written only once the
 * provider accepted the message, and asked about only for messages claimed before; the look-up's own writes that
 * would say more than the record held are removed at once, before any is sent.
 */
export class SendOnceRecord {
	private readonly bucketMs: number;

	private readonly maxEntries: number;

	private pending: string[] = [];

	private writes: Promise<void> = Promise.resolve();

	private lastWriteAt: number;

	private writing = false;

	/** The values this run has written: the claims, then the acknowledgements. */
	private valuesWritten = 0;

	private writeError: unknown;

	constructor(
		private readonly store: ProcessedValues,
		windowMs: number,
		messages: number,
		private readonly now: () => number = Date.now,
	) {
		this.bucketMs = windowMs / 2;
		this.maxEntries = Math.max(MIN_ENTRIES, 3 * messages);
		this.lastWriteAt = now();
	}

	private bucket(): number {
		return Math.floor(this.now() / this.bucketMs);
	}

	/** Claims every identity and answers those the provider acknowledged within the window. */
	async acknowledgedBefore(identities: string[]): Promise<Set<string>> {
		const claims = await this.store.checkAndRecord(
			identities.map((id) => `c:${id}`),
			this.maxEntries,
		);
		this.valuesWritten += identities.length;
		return await this.acknowledgedAmong(identities.filter((id) => claims.has(`c:${id}`)));
	}

	/** Those of the messages claimed before that were acknowledged within the window. */
	private async acknowledgedAmong(claimedBefore: string[]): Promise<Set<string>> {
		if (claimedBefore.length === 0) return new Set();
		const bucket = this.bucket();
		const inBuckets = (kind: string, id: string) => [
			`${kind}:${id}:${bucket}`,
			`${kind}:${id}:${bucket - 1}`,
		];
		const acks = await this.store.checkAndRecord(
			claimedBefore.flatMap((id) => inBuckets('a', id)),
			this.maxEntries,
		);
		const acknowledged = new Set<string>();
		const lookUpWrites: string[] = [];
		for (const id of claimedBefore) {
			const [current, previous] = inBuckets('a', id);
			if (acks.has(current)) acknowledged.add(id);
			else if (acks.has(previous)) {
				acknowledged.add(id);
				// Left in place, it would count the message as sent for another half window.
				lookUpWrites.push(current);
			} else lookUpWrites.push(current, previous);
		}
		// Those not acknowledged are sent now: they must not look acknowledged if this run dies first.
		if (lookUpWrites.length > 0) await this.store.remove(lookUpWrites, this.maxEntries);
		return acknowledged;
	}

	acknowledged(identity: string): void {
		this.pending.push(`a:${identity}:${this.bucket()}`);
		if (this.writeDue()) void this.flush();
	}

	private writeDue(): boolean {
		// Groups are written to the end, though the node may then wait for one in flight before its last write: held
		// back for the last write, they stay unwritten as long as the provider takes to answer the last sends.
		if (this.writing) return false;
		return (
			this.pending.length >= FLUSH_AT * Math.max(1, groupScale(this.valuesWritten)) ||
			this.now() - this.lastWriteAt >= groupTimeMs(this.valuesWritten)
		);
	}

	/** One write at a time: two at once would each rewrite the record without the other's values. */
	flush(): Promise<void> {
		if (this.pending.length === 0) return this.writes;
		const values = this.pending;
		this.pending = [];
		this.writing = true;
		this.valuesWritten += values.length;
		// The next group's clock starts now, not when this write lands: what a dead worker leaves unwritten is then
		// this write and a group's time (or another write's, if longer), not a write, a group and a write.
		this.lastWriteAt = this.now();
		this.writes = this.writes.then(async () => {
			try {
				await this.store.checkAndRecord(values, this.maxEntries);
			} catch (error) {
				this.writeError ??= error;
			}
			this.writing = false;
		});
		return this.writes;
	}

	/** Writes what is left; answers the first write that failed, if any. */
	async finish(): Promise<unknown> {
		await this.flush();
		return this.writeError;
	}
}
