import type { Clock } from '../../../../nodes/Messaging/throughput/clock';

/** A clock whose time only moves when every pending promise has settled: waits cost no real time. */
export class VirtualClock implements Clock {
	private current = 0;

	private timers: Array<{ at: number; order: number; resolve: () => void }> = [];

	private created = 0;

	readonly sleeps: number[] = [];

	now(): number {
		return this.current;
	}

	async sleep(ms: number): Promise<void> {
		this.sleeps.push(ms);
		if (ms <= 0) return;
		await new Promise<void>((resolve) => {
			this.timers.push({ at: this.current + ms, order: this.created++, resolve });
		});
	}

	/** Runs `scenario` to completion, firing timers in time order whenever nothing else can progress. */
	async run<T>(scenario: Promise<T>): Promise<T> {
		let settled = false;
		const outcome = scenario.finally(() => {
			settled = true;
		});
		outcome.catch(() => undefined);
		while (!settled) {
			await new Promise((resolve) => setImmediate(resolve));
			if (settled) break;
			this.timers.sort((a, b) => a.at - b.at || a.order - b.order);
			const next = this.timers.shift();
			if (!next) continue;
			this.current = Math.max(this.current, next.at);
			next.resolve();
		}
		return outcome;
	}
}
