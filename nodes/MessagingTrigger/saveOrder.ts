import { RecentlyUsedMap } from '../shared/recentlyUsedMap';

/** Whether a delivery's answer goes out with its ids in the database, or after an older save landed over them. */
export type SaveVerdict = 'saved' | 'overtaken';

interface LandedSave {
	seq: number;
	decide: (verdict: SaveVerdict) => void;
}

/**
 * The saves of one workflow's static data that n8n makes for deliveries in this process. n8n writes static data
 * whole, and on PostgreSQL (two pooled connections) two saves sent a moment apart can land in either order: an older
 * one landing last drops the ids of every delivery serialised after it, and a retry of those that reaches another
 * process, or comes after a restart, would run again. A later save holds every id an earlier one serialised, so:
 * - a delivery is answered once no older save can still land and the last to land is its own or a newer one;
 * - the last delivery in line hands its execution to n8n only once every earlier one was answered by n8n, so its
 *   save, the newest, lands last and holds everything (one with another waiting or a batch collecting behind it goes
 *   at once: the pace holds).
 * A delivery is overtaken only when an older save landed last and no hand-over is left to save after it: n8n failed
 * the last one.
 */
export class SaveOrder {
	private nextSeq = 0;
	private lastLandedSeq = -1;
	/** Serialised, not landed; a Set keeps insertion order, so the first is the oldest. */
	private readonly unlanded = new Set<number>();
	private readonly waiting: LandedSave[] = [];
	private readonly turns: Array<() => void> = [];
	/** Handed to n8n (or about to be), not yet answered by n8n. */
	private inFlight = 0;

	/**
	 * Resolves once this delivery may hand its execution to n8n; `ended` must follow once n8n answered it. `followed`:
	 * another hand-over of this workflow is sure to come after this one (a batch collecting), so this is not the last.
	 */
	turn(followed = false): Promise<void> {
		if (followed) {
			this.inFlight++;
			return Promise.resolve();
		}
		return new Promise((resolve) => {
			this.turns.push(resolve);
			this.grantTurns();
		});
	}

	/** n8n serialised the save of a delivery handed over: its place in the order. */
	serialised(): number {
		const seq = this.nextSeq++;
		this.unlanded.add(seq);
		return seq;
	}

	/**
	 * n8n answered a delivery handed over, after its save `seq` landed; `decide` hears, now or once later saves land,
	 * whether its ids are in the database. Without a save (n8n failed before it), there is nothing to decide.
	 */
	ended(seq: number | undefined, decide: (verdict: SaveVerdict) => void): void {
		this.inFlight--;
		if (seq !== undefined) {
			this.unlanded.delete(seq);
			this.lastLandedSeq = seq;
			this.waiting.push({ seq, decide });
		}
		// Turns first: a delivery let through now will save after these, so none of them is overtaken for good.
		this.grantTurns();
		this.settleWaiting();
	}

	/** Answers held back: an older save may still land, or one landed last and a newer one is on its way. */
	heldCount(): number {
		return this.waiting.length;
	}

	private grantTurns(): void {
		while (this.turns.length > 0 && (this.inFlight === 0 || this.turns.length > 1)) {
			this.inFlight++;
			this.turns.shift()!();
		}
	}

	private verdictFor(seq: number): SaveVerdict | undefined {
		const oldestUnlanded = this.unlanded.values().next().value;
		if (oldestUnlanded !== undefined && oldestUnlanded < seq) return undefined;
		if (this.lastLandedSeq >= seq) return 'saved';
		return this.inFlight === 0 ? 'overtaken' : undefined;
	}

	private settleWaiting(): void {
		// Oldest first, so answers leave in the order n8n serialised their saves.
		for (const save of [...this.waiting].sort((a, b) => a.seq - b.seq)) {
			const verdict = this.verdictFor(save.seq);
			if (verdict === undefined) continue;
			this.waiting.splice(this.waiting.indexOf(save), 1);
			save.decide(verdict);
		}
	}
}

/** The part of n8n's response to a delivery held here: express's, whose send() and json() end through end(). */
export interface HeldResponse {
	end(...args: unknown[]): unknown;
}

/**
 * Holds n8n's answer to a delivery that had its turn in `order`. n8n answers only after the save landed, so its end()
 * marks the landing; the answer goes out once the order allows, after `overtaken` when an older save landed over the
 * ids. Call `serialised` when n8n serialises the delivery's save.
 */
export function holdAnswerInSaveOrder(
	order: SaveOrder,
	response: HeldResponse,
	overtaken: () => void,
): { serialised(): void } {
	let seq: number | undefined;
	let ended = false;
	const end = response.end;
	response.end = (...args: unknown[]) => {
		response.end = end;
		ended = true;
		order.ended(seq, (verdict) => {
			if (verdict === 'overtaken') overtaken();
			end.apply(response, args);
		});
		if (seq === undefined) return end.apply(response, args);
		return response;
	};
	return {
		serialised: () => {
			if (seq === undefined && !ended) seq = order.serialised();
		},
	};
}

/** Workflows whose order one process keeps; the least recently used beyond it is dropped. */
export const ORDERED_WORKFLOWS = 100;

/** Process-wide: every delivery to a workflow in this process writes the same row. */
const orders = new RecentlyUsedMap<string, SaveOrder>(ORDERED_WORKFLOWS);

export function saveOrderOf(workflowId: string): SaveOrder {
	return orders.getOrCreate(workflowId, () => new SaveOrder());
}
