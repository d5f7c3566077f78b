/**
 * How the ids travel in static data; the stamp names the writer and its version of the ids. The ids are one JSON
 * text, not an array: n8n parses a workflow's static data and walks every array element of it (ObservableObject) on
 * each webhook request, which for 1,000 ids cost more than the rest of the trigger's work on a delivery.
 */
export interface SavedEventIds {
	recentEventIds?: unknown;
	recentEventIdsStamp?: unknown;
}

/** The saved ids: a JSON text, or an array as saved before. Anything else reads as none. */
export function readSavedIds(saved: unknown): string[] {
	let ids = saved;
	if (typeof saved === 'string') {
		try {
			ids = JSON.parse(saved);
		} catch {
			return [];
		}
	}
	return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

/** What a save reads from the memory when n8n serialises it. */
export interface SavedEventIdsSource {
	/** `own`: the ids of the execution this save belongs to, saved even before n8n has confirmed them. */
	savedIds(own: ReadonlySet<string>): string[];
	/** n8n is saving the static data of the execution holding `own`: it has stored that execution. */
	executionStored(own: ReadonlySet<string>): void;
	stamp(): string;
}

/**
 * One delivery's write into static data. n8n turns it into JSON only when it saves, after it has created the
 * execution: the ids are read then, not when the delivery wrote them, so whichever of a process's concurrent saves
 * lands last holds every id the process had claimed when n8n serialised it. Private fields, so a structured clone
 * of the static data copies nothing of the memory.
 */
export class EventIdsSave {
	readonly #source: SavedEventIdsSource;
	readonly #own: ReadonlySet<string>;
	#armed = false;
	#serialised = false;
	#onSerialised: () => void = () => undefined;
	readonly fields: { recentEventIds: SerialisedIds; recentEventIdsStamp: SerialisedStamp };

	constructor(source: SavedEventIdsSource, own: ReadonlySet<string> = new Set()) {
		this.#source = source;
		this.#own = own;
		this.fields = {
			recentEventIds: new SerialisedIds(this),
			recentEventIdsStamp: new SerialisedStamp(this),
		};
	}

	/** From now on a serialisation is n8n saving this write, not anything that happened before. */
	arm(): void {
		this.#armed = true;
	}

	/** Whether n8n serialised this write since it was armed: it does so only to save it. */
	get serialised(): boolean {
		return this.#serialised;
	}

	/** Called once, when n8n first serialises this write to save it. */
	onSerialised(listener: () => void): void {
		this.#onSerialised = listener;
	}

	idsNow(): string[] {
		if (this.#armed) {
			this.#source.executionStored(this.#own);
			if (!this.#serialised) {
				this.#serialised = true;
				this.#onSerialised();
			}
		}
		return this.#source.savedIds(this.#own);
	}

	stampNow(): string {
		return this.#source.stamp();
	}
}

class SerialisedIds {
	readonly #save: EventIdsSave;
	constructor(save: EventIdsSave) {
		this.#save = save;
	}
	toJSON(): string {
		return JSON.stringify(this.#save.idsNow());
	}
}

class SerialisedStamp {
	readonly #save: EventIdsSave;
	constructor(save: EventIdsSave) {
		this.#save = save;
	}
	toJSON(): string {
		return this.#save.stampNow();
	}
}
