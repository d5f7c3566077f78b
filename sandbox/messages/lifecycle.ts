import type { TimerRegistry } from '../timers';
import type { FailingRecipient, LifecycleConfig, MessageRecord } from '../types';
import type { MessageStore } from './message-store';
import { planStatuses } from './status-plan';

export type StatusChangeListener = (message: MessageRecord) => void;

/** Moves each accepted message through its planned statuses, one step every stepDelayMs. */
export class Lifecycle {
	constructor(
		private config: LifecycleConfig | null,
		private readonly messages: MessageStore,
		private readonly timers: TimerRegistry,
		private readonly failingRecipients: readonly FailingRecipient[],
		private readonly onStatusChange: StatusChangeListener,
	) {
		this.configure(config);
	}

	configure(config: LifecycleConfig | null): void {
		this.config = checkedLifecycle(config);
	}

	start(message: MessageRecord): void {
		if (this.config === null) return;
		const steps = planStatuses(message.channel, message.to, this.failingRecipients);
		const stepDelayMs = this.config.stepDelayMs;
		const runStep = (index: number) => {
			if (index >= steps.length) return;
			this.timers.schedule(stepDelayMs, () => {
				const changed = this.messages.changeStatus(
					message.id,
					steps[index].status,
					steps[index].error,
				);
				if (changed) this.onStatusChange(changed);
				runStep(index + 1);
			});
		};
		runStep(0);
	}
}

export function checkedLifecycle(config: LifecycleConfig | null): LifecycleConfig | null {
	if (config !== null && (typeof config !== 'object' || !(config.stepDelayMs >= 0))) {
		throw new Error('lifecycle.stepDelayMs must be 0 or more');
	}
	return config;
}
