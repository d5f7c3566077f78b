import type { ClassifiedFailure } from '../../../../../nodes/Messaging/vocabulary/failureKind';
import {
	backoffDelayMs,
	retryDelayMs,
	sendWithRetries,
	type RetryOptions,
} from '../../../../../nodes/Messaging/transport/failures/retry';
import { VirtualClock } from '../../throughput/virtualClock';

type Answer = { failure: ClassifiedFailure } | { ack: string };

const failureOf = (answer: Answer) => ('failure' in answer ? answer.failure : undefined);

/** A send that answers with the given failures in turn, then succeeds. */
function scriptedSend(failures: ClassifiedFailure[]) {
	const tries: number[] = [];
	const send = async (tryNumber: number): Promise<Answer> => {
		tries.push(tryNumber);
		const failure = failures[tryNumber - 1];
		return failure ? { failure } : { ack: `ack after ${tryNumber} tries` };
	};
	return { send, tries };
}

const noJitter: Pick<RetryOptions, 'random'> = { random: () => 0 };

describe('backoffDelayMs', () => {
	it('doubles per retry, stays within [step/2, step] and stops growing at maxDelayMs', () => {
		const options = { maxTries: 10, idempotent: false, baseDelayMs: 100, maxDelayMs: 1000 };
		expect([1, 2, 3, 4, 5].map((n) => backoffDelayMs(n, { ...options, random: () => 0 }))).toEqual([
			50, 100, 200, 400, 500,
		]);
		expect(
			[1, 2, 3, 4, 5].map((n) => backoffDelayMs(n, { ...options, random: () => 0.999999 })),
		).toEqual([100, 200, 400, 800, 1000]);
	});
});

describe('retryDelayMs', () => {
	const options: RetryOptions = { maxTries: 3, idempotent: false, baseDelayMs: 100, ...noJitter };

	it.each<[string, ClassifiedFailure, boolean, number | undefined]>([
		[
			'429 with Retry-After waits what the provider asked',
			{ kind: 'rate_limited', retryAfter: '2' },
			false,
			2000,
		],
		['429 without Retry-After backs off', { kind: 'rate_limited' }, false, 50],
		['a request that never left is retried', { kind: 'not_sent' }, false, 50],
		[
			'a maybe-processed request is not resent without a key',
			{ kind: 'maybe_processed' },
			false,
			undefined,
		],
		['a maybe-processed request is resent with a key', { kind: 'maybe_processed' }, true, 50],
		['a final failure is never retried', { kind: 'final' }, true, undefined],
	])('%s', (_, failure, idempotent, expected) => {
		expect(retryDelayMs(failure, 1, { ...options, idempotent }, 0)).toBe(expected);
	});

	it('gives up after maxTries tries', () => {
		expect(retryDelayMs({ kind: 'rate_limited' }, 2, options, 0)).toBe(100);
		expect(retryDelayMs({ kind: 'rate_limited' }, 3, options, 0)).toBeUndefined();
	});

	it('fails now instead of stalling when the provider asks for a wait beyond maxDelayMs', () => {
		const failure: ClassifiedFailure = { kind: 'rate_limited', retryAfter: '3600' };
		expect(retryDelayMs(failure, 1, { ...options, maxDelayMs: 60_000 }, 0)).toBeUndefined();
	});
});

describe('sendWithRetries', () => {
	it('succeeds after a 429, having waited exactly the Retry-After', async () => {
		const clock = new VirtualClock();
		const { send, tries } = scriptedSend([{ kind: 'rate_limited', retryAfter: '3' }]);

		const outcome = await clock.run(
			sendWithRetries(send, failureOf, { maxTries: 3, idempotent: false }, clock),
		);

		expect(outcome).toEqual({ answer: { ack: 'ack after 2 tries' }, triesMade: 2 });
		expect(tries).toEqual([1, 2]);
		expect(clock.now()).toBe(3000);
	});

	it('returns the last failure once the tries are used up, with how many were made', async () => {
		const clock = new VirtualClock();
		const { send, tries } = scriptedSend(Array(5).fill({ kind: 'rate_limited' }));

		const outcome = await clock.run(
			sendWithRetries(
				send,
				failureOf,
				{ maxTries: 3, idempotent: false, baseDelayMs: 100, ...noJitter },
				clock,
			),
		);

		expect(outcome).toEqual({ answer: { failure: { kind: 'rate_limited' } }, triesMade: 3 });
		expect(tries).toEqual([1, 2, 3]);
		expect(clock.sleeps).toEqual([50, 100]);
	});

	it('sends a maybe-processed request once without an idempotency key', async () => {
		const clock = new VirtualClock();
		const { send, tries } = scriptedSend([{ kind: 'maybe_processed' }]);

		const outcome = await clock.run(
			sendWithRetries(send, failureOf, { maxTries: 3, idempotent: false }, clock),
		);

		expect(outcome).toEqual({ answer: { failure: { kind: 'maybe_processed' } }, triesMade: 1 });
		expect(tries).toEqual([1]);
		expect(clock.sleeps).toEqual([]);
	});

	it('resends a maybe-processed request when it carries an idempotency key', async () => {
		const clock = new VirtualClock();
		const { send, tries } = scriptedSend([{ kind: 'maybe_processed' }, { kind: 'not_sent' }]);

		const outcome = await clock.run(
			sendWithRetries(
				send,
				failureOf,
				{ maxTries: 3, idempotent: true, baseDelayMs: 100, ...noJitter },
				clock,
			),
		);

		expect(outcome).toEqual({ answer: { ack: 'ack after 3 tries' }, triesMade: 3 });
		expect(tries).toEqual([1, 2, 3]);
	});

	it('returns what was thrown instead of an answer at once, never retried', async () => {
		const clock = new VirtualClock();
		let tries = 0;
		const refused = new Error('budget spent until tomorrow');

		const outcome = await clock.run(
			sendWithRetries(
				async () => {
					tries++;
					throw refused;
				},
				failureOf,
				{ maxTries: 3, idempotent: true },
				clock,
			),
		);

		expect(outcome).toEqual({ error: refused, triesMade: 1 });
		expect(tries).toBe(1);
	});
});
