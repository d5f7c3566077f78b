import type { MessageRecord, RecordedRequest } from '../../sandbox';

export interface DeliveryAudit {
	/** Items with no accepted message. */
	lost: number;
	/** Accepted messages beyond the first for the same item. */
	duplicates: number;
	accepted: number;
}

function orderIdOf(message: MessageRecord): string | undefined {
	const content = message.fields.content;
	const parsed: unknown = typeof content === 'string' ? JSON.parse(content) : content;
	const orderId = (parsed as { order_id?: unknown } | null)?.order_id;
	return typeof orderId === 'string' ? orderId : undefined;
}

/** Counts what the sandbox accepted for the rows of one run, by the row identity carried in `order_id`. */
export function auditDeliveries(
	messages: MessageRecord[],
	runTag: string,
	itemCount: number,
): DeliveryAudit {
	const acceptedPerItem = new Map<string, number>();
	let accepted = 0;
	for (const message of messages) {
		const orderId = orderIdOf(message);
		if (!orderId?.startsWith(`${runTag}-`)) continue;
		accepted++;
		acceptedPerItem.set(orderId, (acceptedPerItem.get(orderId) ?? 0) + 1);
	}
	return {
		lost: itemCount - acceptedPerItem.size,
		duplicates: accepted - acceptedPerItem.size,
		accepted,
	};
}

export function countRateLimited(requests: RecordedRequest[]): number {
	return requests.filter((request) => request.response.status === 429).length;
}
