import { newMessageId } from '../ids';
import type {
	AcceptedUnderFault,
	Acknowledgement,
	Channel,
	ErrorDetail,
	MessageRecord,
	MessageStatus,
	SandboxClock,
	StatusChange,
} from '../types';

export const INITIAL_STATUS: Record<Channel, MessageStatus> = { sms: 'queued', whatsapp: 'sent' };

export interface NewMessage {
	channel: Channel;
	to: string;
	fields: Record<string, unknown>;
	callbackUrl: string | null;
	idempotencyKey: string | null;
}

/** Accepted messages and their status history. */
export class MessageStore {
	private readonly records = new Map<string, MessageRecord>();

	constructor(private readonly clock: SandboxClock) {}

	accept(message: NewMessage): MessageRecord {
		const now = this.clock.now();
		const id = newMessageId(now);
		const status = INITIAL_STATUS[message.channel];
		const acknowledgement: Acknowledgement = { message_id: id, status, channel: message.channel };
		const record: MessageRecord = {
			id,
			...message,
			status,
			error: null,
			acceptedAt: now,
			acknowledgement,
			acceptedUnderFault: null,
			history: [{ status, at: now, error: null }],
		};
		this.records.set(id, record);
		return record;
	}

	/**
	 * Records a new status and answers the change to announce. The status the message already has (a WhatsApp
	 * message acknowledged `sent`, then confirmed sent) is announced again but not added to its history.
	 */
	changeStatus(
		id: string,
		status: MessageStatus,
		error: ErrorDetail | null,
	): { message: MessageRecord; change: StatusChange } | undefined {
		const record = this.records.get(id);
		if (!record) return undefined;
		const change: StatusChange = { status, at: this.clock.now(), error };
		if (record.status === status && error === null) return { message: record, change };
		record.status = status;
		record.error = error;
		record.history.push(change);
		return { message: record, change };
	}

	markAcceptedUnderFault(id: string, fault: AcceptedUnderFault): void {
		const record = this.records.get(id);
		if (record) record.acceptedUnderFault = fault;
	}

	/** A copy of one message, or undefined for an id the sandbox never accepted. */
	find(id: string): MessageRecord | undefined {
		const record = this.records.get(id);
		return record ? structuredClone(record) : undefined;
	}

	clear(): void {
		this.records.clear();
	}

	list(): MessageRecord[] {
		return structuredClone([...this.records.values()]);
	}
}
