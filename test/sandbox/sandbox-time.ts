import { performance } from 'node:perf_hooks';

import { createManualClock } from '../../sandbox';
import { TimerRegistry } from '../../sandbox/timers';

/**
 * Sandbox time that only moves when the test says so, for the parts of the sandbox that run on real time:
 * every delay it schedules (latency, fault delays, lifecycle steps, webhook backoff) goes through its
 * TimerRegistry, and the rate limiter's token buckets refill on `performance.now()`. Both read one manual
 * clock here, so a test asserts "answered after 120 ms of sandbox time" or "429 until a second has passed"
 * without measuring the wall clock, and a loaded machine cannot change the outcome.
 *
 * The sandbox's own `clock` option (timestamps, session windows, idempotency expiry) is separate and unchanged.
 */
export interface SandboxTime {
	/** Milliseconds of sandbox time since installation. */
	now(): number;
	/** Every delay the sandbox asked for since installation, in the order asked. */
	requestedDelays(): number[];
	/** Delays asked for that have not run yet, in the order asked. */
	pendingDelays(): number[];
	/** Moves time forward, running each delay as it falls due, then lets what they started run. */
	advance(ms: number): Promise<void>;
	/** Moves time to the earliest pending delay and runs it (and any due at the same time). */
	advanceToNextDelay(): Promise<void>;
	/**
	 * Waits, in real time, until the sandbox (busy with real I/O) has asked for `count` delays not yet run,
	 * or until `orWhen` holds.
	 */
	untilPending(count: number, orWhen?: () => boolean): Promise<void>;
	restore(): void;
}

interface ScheduledDelay {
	delayMs: number;
	dueAt: number;
	run: () => void;
	done: boolean;
	registry: TimerRegistry;
}

/** Lets promise continuations and ready I/O callbacks run. */
export async function settle(turns = 3): Promise<void> {
	for (let turn = 0; turn < turns; turn++)
		await new Promise<void>((resolve) => setImmediate(resolve));
}

export function installSandboxTime(): SandboxTime {
	const clock = createManualClock(0);
	const delays: ScheduledDelay[] = [];

	const schedule = jest.spyOn(TimerRegistry.prototype, 'schedule').mockImplementation(function (
		this: TimerRegistry,
		delayMs: number,
		run: () => void,
	) {
		if (this.isClosed) return;
		delays.push({
			delayMs,
			dueAt: clock.now() + Math.max(0, delayMs),
			run,
			done: false,
			registry: this,
		});
	});
	const monotonic = jest.spyOn(performance, 'now').mockImplementation(() => clock.now());

	const pending = () => delays.filter((delay) => !delay.done);
	const nextDue = (until: number) =>
		pending()
			.filter((delay) => delay.dueAt <= until)
			.reduce<ScheduledDelay | undefined>(
				(first, delay) => (first && first.dueAt <= delay.dueAt ? first : delay),
				undefined,
			);

	return {
		now: () => clock.now(),
		requestedDelays: () => delays.map((delay) => delay.delayMs),
		pendingDelays: () => pending().map((delay) => delay.delayMs),
		async advance(ms: number) {
			const target = clock.now() + ms;
			for (let due = nextDue(target); due; due = nextDue(target)) {
				clock.advance(due.dueAt - clock.now());
				due.done = true;
				// A closed sandbox runs nothing, as its real timers would have been cleared.
				if (!due.registry.isClosed) due.run();
				await settle();
			}
			clock.advance(target - clock.now());
			await settle();
		},
		async advanceToNextDelay() {
			const next = nextDue(Number.POSITIVE_INFINITY);
			if (!next) throw new Error('no sandbox delay is pending');
			await this.advance(next.dueAt - clock.now());
		},
		async untilPending(count: number, orWhen: () => boolean = () => false) {
			const deadline = Date.now() + 10_000;
			while (pending().length < count && !orWhen()) {
				if (Date.now() > deadline)
					throw new Error(`expected ${count} pending sandbox delays, got ${pending().length}`);
				await new Promise<void>((resolve) => setTimeout(resolve, 1));
			}
		},
		restore() {
			schedule.mockRestore();
			monotonic.mockRestore();
		},
	};
}

/** Installs manual sandbox time before each test of the enclosing block and restores real time after it. */
export function useSandboxTime(): () => SandboxTime {
	let time: SandboxTime | undefined;
	beforeEach(() => {
		time = installSandboxTime();
	});
	afterEach(() => {
		time?.restore();
		time = undefined;
	});
	return () => {
		if (!time) throw new Error('Sandbox time is installed only while a test runs');
		return time;
	};
}

/** A promise and whether it has settled yet, to check that an answer is still held back. */
export function tracked<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
	let settled = false;
	const watched = promise.finally(() => {
		settled = true;
	});
	return { promise: watched, settled: () => settled };
}
