import { sleep } from 'n8n-workflow';

import type { ProcessedValues } from '../shared/processedValues';

/**
 * Event ids recorded in n8n's store per trigger: a killed webhook process's events come back with the sender's
 * retries, seconds to minutes later, and a campaign's events arrive at a few hundred a second. A bigger row costs
 * every worker execution more: each check rewrites it whole.
 */
export const RECORDED_EVENT_IDS = 10_000;

/**
 * n8n's store reads the row, then writes it back whole. A check in another process that read the row before an id
 * was written drops it when its own write lands: the id is lost unless it is checked again after that write. Under a
 * burst both workers check back to back, so one id can be dropped several times running, and a busy process can
 * take hundreds of milliseconds from its read to its write. So this process keeps checking what its executions
 * recorded: every `RECHECK_AFTER_MS` until a check at least that long after the id's last write finds it, then every
 * `CONFIRM_EVERY_MS` until one finds it `KEEP_CHECKING_MS` after that write. Dropping it after that takes a check
 * that read the row before the write and wrote back more than `KEEP_CHECKING_MS` later.
 */
export const RECHECK_AFTER_MS = 200;
export const CONFIRM_EVERY_MS = 1_000;
export const KEEP_CHECKING_MS = 5_000;
/** A store whose writes keep dropping an id is given up on: the checks would otherwise never end. */
const GIVE_UP_AFTER_MS = 60_000;
/** An execution waits at most this long for its ids to be found once, then passes its events on regardless. */
export const FOUND_ONCE_WAIT_MS = 3 * RECHECK_AFTER_MS;

interface Kept {
	recordedAt: number;
	/** When the check that (re)wrote the id answered: its write landed before then. */
	writtenAt: number;
	nextCheckAt: number;
	foundOnce: boolean;
	/** Executions waiting for the id to be found once: told nothing, or the store's error. */
	waiters: Array<(failure?: unknown) => void>;
}

interface FirstCheck {
	eventIds: readonly string[];
	answer: (held: Set<string>) => void;
	fail: (error: unknown) => void;
}

/** One trigger's record in this process: one check at a time, each carrying every first check queued. */
interface ScopeRecord {
	scope: string;
	store: ProcessedValues;
	queued: FirstCheck[];
	kept: Map<string, Kept>;
	running: boolean;
	/** When the sleep under way wakes the checks again, if one is. */
	wakeAt?: number;
}

const records = new Map<string, ScopeRecord>();

function recordOf(scope: string, store: ProcessedValues): ScopeRecord {
	let record = records.get(scope);
	if (!record) {
		record = { scope, store, queued: [], kept: new Map(), running: false };
		records.set(scope, record);
	}
	return record;
}

function keep(record: ScopeRecord, id: string, writtenAt: number): void {
	const nextCheckAt = writtenAt + RECHECK_AFTER_MS;
	record.kept.set(id, {
		recordedAt: writtenAt,
		writtenAt,
		nextCheckAt,
		foundOnce: false,
		waiters: [],
	});
}

function settle(kept: Kept, failure?: unknown): void {
	for (const waiter of kept.waiters.splice(0)) waiter(failure);
}

/** Held: the store held the id, this process keeps it, or an earlier first check in the same call took it. */
function answerFirstChecks(
	record: ScopeRecord,
	checks: FirstCheck[],
	held: Set<string>,
	end: number,
) {
	for (const check of checks) {
		const before = new Set<string>();
		for (const id of check.eventIds) {
			if (held.has(id) || record.kept.has(id)) before.add(id);
			else keep(record, id, end);
		}
		check.answer(before);
	}
}

/** What one check says of a kept id: found long enough after its last write, or dropped and written again. */
function updateKept(record: ScopeRecord, id: string, found: boolean, start: number, end: number) {
	const kept = record.kept.get(id);
	if (!kept) return;
	if (!found) {
		kept.writtenAt = end;
		kept.nextCheckAt = end + RECHECK_AFTER_MS;
		if (end - kept.recordedAt >= GIVE_UP_AFTER_MS) forget(record, id);
		return;
	}
	const since = start - kept.writtenAt;
	if (since >= KEEP_CHECKING_MS) return forget(record, id);
	if (since >= RECHECK_AFTER_MS && !kept.foundOnce) {
		kept.foundOnce = true;
		settle(kept);
	}
	const step = kept.foundOnce ? CONFIRM_EVERY_MS : RECHECK_AFTER_MS;
	kept.nextCheckAt = Math.min(start + step, kept.writtenAt + KEEP_CHECKING_MS);
}

function forget(record: ScopeRecord, id: string, failure?: unknown): void {
	const kept = record.kept.get(id);
	if (kept) settle(kept, failure);
	record.kept.delete(id);
}

function dueIds(record: ScopeRecord, now: number): string[] {
	return [...record.kept].filter(([, kept]) => kept.nextCheckAt <= now).map(([id]) => id);
}

/**
 * Tried twice when it carries first checks: the first checks of a trigger in two workers both find no row and both
 * insert one, and the database refuses the second insert; the check finds the row when it tries again.
 */
async function checkAndRecord(record: ScopeRecord, values: string[], firstChecks: boolean) {
	const attempt = async () => await record.store.checkAndRecord(values, RECORDED_EVENT_IDS);
	if (!firstChecks) return await attempt();
	return await attempt().catch(async () => {
		await sleep(RECHECK_AFTER_MS);
		return await attempt();
	});
}

/** One check for every first check queued and every kept id (only those `due` when no first check is queued). */
async function checkOnce(record: ScopeRecord, due: string[]): Promise<void> {
	const checks = record.queued.splice(0);
	const kept = checks.length > 0 ? [...record.kept.keys()] : due;
	const values = [...new Set([...kept, ...checks.flatMap((check) => check.eventIds)])];
	const start = Date.now();
	let held: Set<string>;
	try {
		held = await checkAndRecord(record, values, checks.length > 0);
	} catch (error) {
		for (const check of checks) check.fail(error);
		for (const id of kept) forget(record, id, error);
		return;
	}
	const end = Date.now();
	answerFirstChecks(record, checks, held, end);
	for (const id of kept) updateKept(record, id, held.has(id), start, end);
}

/** Checks while any first check is queued or kept id due, then sleeps until the next is due. */
function pump(record: ScopeRecord): void {
	if (record.running) return;
	record.running = true;
	void (async () => {
		try {
			for (;;) {
				const due = dueIds(record, Date.now());
				if (record.queued.length === 0 && due.length === 0) break;
				await checkOnce(record, due);
			}
		} finally {
			record.running = false;
			wakeForNextDue(record);
		}
	})();
}

function wakeForNextDue(record: ScopeRecord): void {
	if (record.kept.size === 0 && record.queued.length === 0) {
		if (records.get(record.scope) === record && record.wakeAt === undefined)
			records.delete(record.scope);
		return;
	}
	const next = Math.min(...[...record.kept.values()].map((kept) => kept.nextCheckAt));
	if (record.wakeAt !== undefined && record.wakeAt <= next) return;
	record.wakeAt = next;
	void sleep(Math.max(0, next - Date.now())).then(() => {
		if (record.wakeAt === next) record.wakeAt = undefined;
		pump(record);
	});
}

/** Records `eventIds` in n8n's store and keeps checking them; answers those held before. */
export async function recordEvents(
	scope: string,
	eventIds: readonly string[],
	store: ProcessedValues,
): Promise<Set<string>> {
	const record = recordOf(scope, store);
	const held = new Promise<Set<string>>((answer, fail) =>
		record.queued.push({ eventIds, answer, fail }),
	);
	pump(record);
	return await held;
}

/**
 * Waits until a check at least `RECHECK_AFTER_MS` after their last write found each of `eventIds`, or
 * `FOUND_ONCE_WAIT_MS` passed; answers the store's error if a check failed.
 */
export async function foundOnce(scope: string, eventIds: readonly string[]): Promise<unknown> {
	const record = records.get(scope);
	const waits = eventIds.flatMap((id) => {
		const kept = record?.kept.get(id);
		if (!kept || kept.foundOnce) return [];
		return [new Promise<unknown>((resolve) => kept.waiters.push(resolve))];
	});
	if (waits.length === 0) return undefined;
	const failures = Promise.all(waits).then((answers) => answers.find((failure) => failure));
	return await Promise.race([failures, sleep(FOUND_ONCE_WAIT_MS)]);
}
