import type { WebhookEvent, WebhookSummary } from '../types';

/** Counters per event and per POST, so a 30,000-event run can be judged without listing its attempts. */
export class DeliverySummary {
	private events = 0;
	private delivered = 0;
	private gaveUp = 0;
	private posts = 0;
	private readonly deliveredAfterAttempts: Record<string, number> = {};
	private readonly postsByHttpStatus: Record<string, number> = {};
	private readonly deliveredByEventStatus: Record<string, number> = {};

	enqueued(): void {
		this.events++;
	}

	posted(status: number | null): void {
		this.posts++;
		increment(this.postsByHttpStatus, status === null ? 'none' : String(status));
	}

	deliveredAll(events: readonly WebhookEvent[], attempts: number): void {
		this.delivered += events.length;
		increment(this.deliveredAfterAttempts, String(attempts), events.length);
		for (const event of events)
			increment(
				this.deliveredByEventStatus,
				event.type === 'message.status' ? event.status : 'inbound',
			);
	}

	gaveUpOn(count: number): void {
		this.gaveUp += count;
	}

	snapshot(pool: { inFlight: number; maxInFlight: number }): WebhookSummary {
		return {
			events: this.events,
			delivered: this.delivered,
			deliveredAfterAttempts: { ...this.deliveredAfterAttempts },
			pending: this.events - this.delivered - this.gaveUp,
			gaveUp: this.gaveUp,
			posts: this.posts,
			postsByHttpStatus: { ...this.postsByHttpStatus },
			deliveredByEventStatus: { ...this.deliveredByEventStatus },
			inFlight: pool.inFlight,
			maxInFlight: pool.maxInFlight,
		};
	}
}

function increment(counts: Record<string, number>, key: string, by = 1): void {
	counts[key] = (counts[key] ?? 0) + by;
}
