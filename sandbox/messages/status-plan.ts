import type { Channel, ErrorDetail, FailingRecipient, MessageStatus } from '../types';

export interface PlannedStatus {
	status: MessageStatus;
	error: ErrorDetail | null;
}

const HAPPY_PATH: Record<Channel, MessageStatus[]> = {
	sms: ['sent', 'delivered'],
	whatsapp: ['delivered', 'read'],
};

/**
 * The statuses a message goes through after its acknowledgement. An undelivered SMS did leave
 * (sent) before it expired; a failed message never left.
 */
export function planStatuses(
	channel: Channel,
	to: string,
	failingRecipients: readonly FailingRecipient[],
): PlannedStatus[] {
	const failure = failingRecipients.find(
		(recipient) => recipient.to === to && recipient.channel === channel,
	);
	if (!failure) return HAPPY_PATH[channel].map((status) => ({ status, error: null }));
	const error = { code: failure.code, message: failure.message };
	const leadIn: PlannedStatus[] =
		failure.status === 'undelivered' ? [{ status: 'sent', error: null }] : [];
	return [...leadIn, { status: failure.status, error }];
}
