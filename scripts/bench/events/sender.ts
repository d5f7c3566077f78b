import { deliveryHeaders } from '../../../sandbox/webhooks/signing';

export interface StatusEvent {
	event_id: string;
	type: 'message.status';
	message_id: string;
	channel: 'whatsapp';
	status: 'sent' | 'delivered' | 'read';
	timestamp: string;
	recipient: string;
}

/** One POST: a single event as the body, or several as a JSON array (a provider that batches, SendGrid style). */
export interface Delivery {
	id: string;
	events: StatusEvent[];
}

const STATUSES = ['sent', 'delivered', 'read'] as const;

/** The status events of a WhatsApp campaign, three per message, grouped `perPost` to a delivery. */
export function campaignDeliveries(tag: string, events: number, perPost: number): Delivery[] {
	const all: StatusEvent[] = Array.from({ length: events }, (_, index) => {
		const message = Math.floor(index / STATUSES.length);
		return {
			event_id: `evt_${tag}_${index}`,
			type: 'message.status',
			message_id: `msg_${tag}_${message}`,
			channel: 'whatsapp',
			status: STATUSES[index % STATUSES.length],
			timestamp: new Date().toISOString(),
			recipient: `+9198${String(message).padStart(8, '0')}`,
		};
	});
	const deliveries: Delivery[] = [];
	for (let start = 0; start < all.length; start += perPost)
		deliveries.push({ id: `dlv_${tag}_${start}`, events: all.slice(start, start + perPost) });
	return deliveries;
}

export interface SenderPlan {
	/** Where each attempt goes: one URL, or a new pick per attempt (a load balancer over webhook processes). */
	url: () => string;
	deliveries: Delivery[];
	/** The provider's open requests at most: a batch can never hold more deliveries than this. */
	openRequests: number;
	/** Arrival pace; undefined sends as fast as the open requests allow. */
	eventsPerSecond?: number;
	signingSecret: string;
	/** Gives up on a delivery never answered 2xx after this long (the run then reports it as not accepted). */
	deadlineMs: number;
}

export interface SendResult {
	startedAt: number;
	endedAt: number;
	/** Deliveries answered 2xx, by id (a retried one counts once, when it was accepted). */
	accepted: Set<string>;
	/** Time from sending to the answer of every attempt answered 2xx. */
	answerMs: number[];
	/** Every attempt's answer by HTTP status (0: no answer: refused, reset or timed out). */
	answers: Map<number, number>;
	attempts: number;
	/** When each delivery was answered 2xx, and the answer's body (how the trigger counted its events). */
	acceptedAnswers: Map<string, { at: number; body: string }>;
}

const ATTEMPT_TIMEOUT_MS = 120_000;
const RETRY_DELAY_MS = 1_000;
const MAX_RETRY_AFTER_MS = 5_000;

/** One signed POST; the status (0 when there was no answer) and when a Retry-After asks to come back. */
async function post(
	url: string,
	delivery: Delivery,
	secret: string,
): Promise<{ status: number; retryAfterMs: number; body: string }> {
	const body = JSON.stringify(delivery.events.length === 1 ? delivery.events[0] : delivery.events);
	const headers = deliveryHeaders(secret, delivery.id, Math.floor(Date.now() / 1000), body);
	try {
		const response = await fetch(url, {
			method: 'POST',
			headers,
			body,
			signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
		});
		const text = await response.text();
		const retryAfter = Number(response.headers.get('retry-after'));
		return {
			status: response.status,
			body: text.slice(0, 200),
			retryAfterMs:
				retryAfter > 0 ? Math.min(retryAfter * 1000, MAX_RETRY_AFTER_MS) : RETRY_DELAY_MS,
		};
	} catch {
		return { status: 0, retryAfterMs: RETRY_DELAY_MS, body: '' };
	}
}

interface Pending {
	delivery: Delivery;
	dueAt: number;
}

/**
 * A provider: deliveries leave at the arrival pace, at most `openRequests` at once, and one not answered 2xx is
 * sent again (after its Retry-After, else a second) until it is, as a provider retries. Nothing is counted from
 * the answers but what the provider saw.
 */
export async function sendAll(plan: SenderPlan): Promise<SendResult> {
	const startedAt = Date.now();
	const result: SendResult = {
		startedAt,
		endedAt: startedAt,
		accepted: new Set(),
		answerMs: [],
		answers: new Map(),
		acceptedAnswers: new Map(),
		attempts: 0,
	};
	let eventsScheduled = 0;
	const queue: Pending[] = plan.deliveries.map((delivery) => {
		const dueAt = plan.eventsPerSecond
			? startedAt + (eventsScheduled * 1000) / plan.eventsPerSecond
			: 0;
		eventsScheduled += delivery.events.length;
		return { delivery, dueAt };
	});
	const retries: Pending[] = [];
	let unsettled = queue.length;
	let nextNew = 0;
	const nextDue = (): Pending | number | undefined => {
		const now = Date.now();
		const retry = retries.findIndex((pending) => pending.dueAt <= now);
		if (retry >= 0) return retries.splice(retry, 1)[0];
		if (nextNew < queue.length && queue[nextNew].dueAt <= now) return queue[nextNew++];
		const waits = [...retries, ...queue.slice(nextNew, nextNew + 1)].map(
			(pending) => pending.dueAt - now,
		);
		return waits.length > 0 ? Math.max(1, Math.min(50, ...waits)) : unsettled > 0 ? 50 : undefined;
	};
	const worker = async () => {
		for (;;) {
			if (Date.now() - startedAt > plan.deadlineMs) return;
			const next = nextDue();
			if (next === undefined) return;
			if (typeof next === 'number') {
				await new Promise((resolve) => setTimeout(resolve, next));
				continue;
			}
			const sentAt = Date.now();
			const answer = await post(plan.url(), next.delivery, plan.signingSecret);
			result.attempts++;
			result.answers.set(answer.status, (result.answers.get(answer.status) ?? 0) + 1);
			if (answer.status >= 200 && answer.status < 300) {
				result.answerMs.push(Date.now() - sentAt);
				result.accepted.add(next.delivery.id);
				result.acceptedAnswers.set(next.delivery.id, { at: Date.now(), body: answer.body });
				unsettled--;
			} else retries.push({ delivery: next.delivery, dueAt: Date.now() + answer.retryAfterMs });
		}
	};
	await Promise.all(Array.from({ length: plan.openRequests }, worker));
	result.endedAt = Date.now();
	return result;
}
