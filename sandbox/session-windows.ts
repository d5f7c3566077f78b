import type { SandboxClock } from './types';

export const SESSION_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Who wrote to us, and when: a session reply is allowed for 24 hours after the last inbound message. */
export class SessionWindows {
	private readonly lastInboundAt = new Map<string, number>();

	constructor(private readonly clock: SandboxClock) {}

	recordInbound(from: string): void {
		this.lastInboundAt.set(from, this.clock.now());
	}

	isOpen(recipient: string): boolean {
		const last = this.lastInboundAt.get(recipient);
		return last !== undefined && this.clock.now() - last < SESSION_WINDOW_MS;
	}

	closesAt(recipient: string): number | null {
		const last = this.lastInboundAt.get(recipient);
		return last === undefined ? null : last + SESSION_WINDOW_MS;
	}
}
