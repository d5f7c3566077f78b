import { RecentlyUsedMap } from '../../shared/recentlyUsedMap';
import { AUTOMATIC_START } from './concurrencyTuning';

/** Where the automatic concurrency limit's search stands. */
export interface SearchState {
	limit: number;
	/** Still growing by half per round trip: no knee was met yet. */
	slowStart: boolean;
	fastestRoundTrip: number;
}

/** What the automatic concurrency limit had learnt of one provider when it last decided. */
export interface LearntPace extends SearchState {
	learntAt: number;
}

// One entry per credential and base URL: a process sees few, and those of deleted credentials must not pile up.
export const PACES_KEPT = 100;
// An hourly workflow finds the pace its previous run learnt; a provider unheard of for longer may have changed
// its knee, so the search starts again.
export const PACE_KEPT_MS = 2 * 60 * 60 * 1000;

/**
 * The pace learnt per credential and base URL, kept across the executions of one process, so an execution of a
 * hundred messages starts where the previous one got to instead of ramping up from the start again. A pace cut by
 * the provider's throttling (a 429, a budget running out) is forgotten, never reused: the throttle ends at its reset.
 */
export class PaceMemory {
	private readonly paces = new RecentlyUsedMap<string, LearntPace>(PACES_KEPT);

	/** The pace learnt for `key`, unless it is stale at `now`. */
	recall(key: string, now: number): LearntPace | undefined {
		const pace = this.paces.get(key);
		if (!pace) return undefined;
		if (now - pace.learntAt <= PACE_KEPT_MS && now >= pace.learntAt) return pace;
		this.paces.delete(key);
		return undefined;
	}

	remember(key: string, pace: LearntPace): void {
		this.paces.set(key, pace);
	}

	forget(key: string): void {
		this.paces.delete(key);
	}
}

/** Where one run's limit reads and writes its pace. */
export interface PaceSlot {
	memory: PaceMemory;
	key: string;
}

const processPaces = new PaceMemory();

/** One run's hold on its slot: it keeps the search as it goes, and lets go for good once the provider throttles. */
export class RunPace {
	constructor(private slot: PaceSlot | undefined) {}

	recall(now: number): LearntPace | undefined {
		return this.slot?.memory.recall(this.slot.key, now);
	}

	keep(search: SearchState, now: number): void {
		this.slot?.memory.remember(this.slot.key, { ...search, learntAt: now });
	}

	/** A pace the provider cut holds until its reset, which no later run can know: it is neither kept nor reused. */
	drop(): void {
		this.slot?.memory.forget(this.slot.key);
		this.slot = undefined;
	}
}

/**
 * The slot of the credential and base URL a run sends to, in this process's memory. Each queue-mode worker is its
 * own process and learns its own pace; the account's shared budget is read from the provider's answers as before.
 */
export function paceSlotFor(endpoint: {
	baseUrl: string;
	credentialOptions?: { credentialsDecrypted?: { id?: string } };
}): PaceSlot {
	const credentialId = endpoint.credentialOptions?.credentialsDecrypted?.id ?? '';
	return { memory: processPaces, key: `${credentialId}\u0000${endpoint.baseUrl}` };
}

/**
 * Where a run's search starts: at the user's bound; without one, where the last run to this provider left off, as
 * if this were that run's next round trip, or else from the start.
 */
export function startingSearch(
	upperBound: number,
	automatic: boolean,
	pace: RunPace,
	now: number,
): SearchState {
	const learnt = pace.recall(now);
	if (learnt) {
		const { limit, slowStart, fastestRoundTrip } = learnt;
		return { limit: Math.min(upperBound, limit), slowStart, fastestRoundTrip };
	}
	return {
		// A bound the user chose is a pace they already trust: start there and only leave it on a signal.
		limit: automatic ? AUTOMATIC_START : upperBound,
		slowStart: automatic,
		fastestRoundTrip: Number.POSITIVE_INFINITY,
	};
}
