import { createRandom, type Random } from '../random';
import type { TimerRegistry } from '../timers';
import type {
	FailingRecipient,
	LifecycleConfig,
	MessageRecord,
	RealisticLifecycle,
	StatusChange,
} from '../types';
import type { MessageStore } from './message-store';
import {
	checkedRealistic,
	DEFAULT_FAILED_SHARE,
	planRealistic,
	type TimedStatus,
} from './realistic-plan';
import { planStatuses } from './status-plan';

export type StatusChangeListener = (message: MessageRecord, change: StatusChange) => void;

/**
 * Moves each accepted message through its planned statuses: one step every stepDelayMs, or with the spread
 * delays of the realistic mode, drawn from one seeded random source in acceptance order.
 */
export class Lifecycle {
	private random: Random | null = null;

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
		this.random = isRealistic(this.config) ? createRandom(this.config.seed) : null;
	}

	/** The realistic settings in force, for a campaign that inherits them. */
	realistic(): RealisticLifecycle | null {
		return isRealistic(this.config) ? this.config : null;
	}

	start(message: MessageRecord): void {
		const config = this.config;
		if (config === null) return;
		if (!isRealistic(config)) {
			const steps = planStatuses(message.channel, message.to, this.failingRecipients);
			this.play(
				message.id,
				steps.map((step) => ({ ...step, afterMs: config.stepDelayMs })),
			);
			return;
		}
		this.play(
			message.id,
			planRealistic({
				channel: message.channel,
				to: message.to,
				failingRecipients: this.failingRecipients,
				random: this.random ?? createRandom(),
				failedShare: config.failedShare ?? DEFAULT_FAILED_SHARE,
				timeScale: config.timeScale ?? 1,
			}),
		);
	}

	/** Runs planned steps one after the other, each its afterMs after the previous. */
	play(messageId: string, steps: readonly TimedStatus[]): void {
		const runStep = (index: number) => {
			if (index >= steps.length) return;
			this.timers.schedule(steps[index].afterMs, () => {
				const changed = this.messages.changeStatus(
					messageId,
					steps[index].status,
					steps[index].error,
				);
				if (changed) this.onStatusChange(changed.message, changed.change);
				runStep(index + 1);
			});
		};
		runStep(0);
	}
}

function isRealistic(config: LifecycleConfig | null): config is RealisticLifecycle {
	return config !== null && 'mode' in config;
}

export function checkedLifecycle(config: LifecycleConfig | null): LifecycleConfig | null {
	if (config === null) return null;
	if (typeof config !== 'object')
		throw new Error('lifecycle must be { stepDelayMs } or { mode: "realistic", … }');
	if ('mode' in config) {
		if (config.mode !== 'realistic' || 'stepDelayMs' in config)
			throw new Error(
				'lifecycle.mode must be "realistic" (its delays are spread; drop stepDelayMs), or leave mode out for fixed steps',
			);
		return checkedRealistic(config);
	}
	if (!(config.stepDelayMs >= 0)) throw new Error('lifecycle.stepDelayMs must be 0 or more');
	return config;
}
