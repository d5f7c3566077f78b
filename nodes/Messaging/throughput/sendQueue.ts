/** A retry has already waited out its Retry-After; letting fresh items overtake it is how it runs out of tries. */
export type SendTurn = 'retry' | 'first';

export interface Waiter {
	resolve: (startedAt: number) => void;
	reject: (error: Error) => void;
}

/** The senders waiting for a slot, retries before first tries, each kind in arrival order. */
export class SendQueue {
	private readonly waiting: Record<SendTurn, Waiter[]> = { retry: [], first: [] };

	add(turn: SendTurn, waiter: Waiter): void {
		this.waiting[turn].push(waiter);
	}

	next(): Waiter | undefined {
		return this.waiting.retry.shift() ?? this.waiting.first.shift();
	}

	get isEmpty(): boolean {
		return this.waiting.retry.length === 0 && this.waiting.first.length === 0;
	}
}
