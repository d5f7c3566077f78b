import type { ProxiedRequest, ProviderShape } from '../latencyProxy';
import { rotated } from '../stats';
import { FIXED_SETTINGS } from './cases';
import { auditAnswers, checkRanInTurn, wireSpan } from './samples';
import { campaignWorkflow, type Branch, type Sender } from './workflows';

/** Campaign sizes most workflows send per execution: one CRM batch, one hourly digest. */
export const SMALL_SIZES = [100, 500, 1000];

export const SMALL_PROVIDERS: Array<{ key: string; label: string; shape: ProviderShape }> = [
	{ key: 'fast', label: '20 ms', shape: { latencyMs: 20, jitterMs: 5 } },
	{ key: 'slow', label: '200 ms', shape: { latencyMs: 200, jitterMs: 20 } },
];

export const FIRST = 'first';
export const SECOND = 'second';
export const fixedKey = (limit: number) => `fixed${limit}`;

/**
 * Samples of every case per repetition, by size; a size not named gets one. A campaign of 100 messages at 20 ms is
 * about 0.1 s on the wire, where a few milliseconds of jitter move a ratio by 10 %: its round of cases runs this
 * many times in a row in the same workflow, and every round is a sample.
 */
export const SAMPLES_PER_REPETITION: Readonly<Record<number, number>> = { 100: 5, 500: 3 };

export const samplesPerRepetition = (size: number) => SAMPLES_PER_REPETITION[size] ?? 1;

/**
 * Each size and round sends with a credential of its own: the pace the automatic limit learns is kept per
 * credential and base URL (fixed settings neither read nor keep one), so every round's first execution meets a
 * provider the process has not learnt yet, and its second finds what that one learnt and nothing else.
 */
export function sizeCredential(size: number, round: number) {
	return {
		id: `benchSmall${size}r${round}`,
		name: `Messaging Sandbox (small campaigns, ${size}, round ${round + 1})`,
	};
}

export const subWorkflowId = (size: number, round: number) => `smallSecond${size}r${round}`;

/** Every size and round with a credential and a second-execution sub-workflow of its own. */
export function smallRounds(): Array<{ size: number; round: number }> {
	return SMALL_SIZES.flatMap((size) =>
		Array.from({ length: samplesPerRepetition(size) }, (_, round) => ({ size, round })),
	);
}

/**
 * The second execution of one size and round: Rows → the Messaging node at its defaults, with that round's
 * credential, the rows tagged by the caller. One per size and round for the whole scenario, published once.
 */
export function secondExecutionWorkflow(
	{ size, round }: { size: number; round: number },
	api: { baseUrl: string; apiKey: string },
) {
	const branch: Branch = {
		key: `${size}-${SECOND}`,
		runTag: '',
		tagFromInput: true,
		count: size,
		sender: { kind: 'messaging', options: {}, credential: sizeCredential(size, round) },
	};
	return campaignWorkflow(subWorkflowId(size, round), [branch], api, { start: 'subWorkflow' });
}

/** A case of one size: the Messaging node at a fixed setting, or at its defaults in one or the next execution. */
interface SmallCase {
	key: string;
	options: Record<string, unknown>;
	/** Runs as an execution of its own (a sub-workflow) right after the first automatic one. */
	secondExecution?: boolean;
}

/**
 * The cases of one size in one round, in the order they run: the fixed settings and the pair of automatic
 * executions rotate by `turn`, the pair staying together so the second finds what the first learnt and nothing else.
 */
function casesInTurn(turn: number): SmallCase[][] {
	const units: SmallCase[][] = FIXED_SETTINGS.map((limit) => [
		{ key: fixedKey(limit), options: { maxConcurrency: limit } },
	]);
	units.push([
		{ key: FIRST, options: {} },
		{ key: SECOND, options: {}, secondExecution: true },
	]);
	return rotated(units, turn);
}

export interface SmallBranch extends Branch {
	size: number;
	caseKey: string;
	/** Which of the size's rounds in this repetition (0 for a size with one sample per repetition). */
	round: number;
}

/**
 * Every case of every size for one provider and repetition, in the order they run; sizes rotate by repetition.
 * A size runs its round of cases `samplesPerRepetition` times in a row, interleaved (5, 10, 20, 50 in flight, the
 * pair, then again), the order rotated one further each round; its first round is in the order of a size with
 * one round.
 */
export function smallBranches(
	providerKey: string,
	repetition: number,
	stamp: string,
): SmallBranch[] {
	return rotated(SMALL_SIZES, repetition).flatMap((size) =>
		Array.from({ length: samplesPerRepetition(size) }, (_, round) =>
			casesInTurn(repetition + round)
				.flat()
				.map((entry): SmallBranch => {
					const key = `${size}-${entry.key}-r${round}`;
					const sender: Sender = {
						kind: 'messaging',
						options: entry.options,
						credential: sizeCredential(size, round),
					};
					return {
						key,
						size,
						caseKey: entry.key,
						round,
						runTag: `small-${providerKey}-${key}-${repetition}-${stamp}`,
						count: size,
						sender,
						...(entry.secondExecution && { subWorkflowId: subWorkflowId(size, round) }),
					};
				}),
		).flat(),
	);
}

/** What one case measured: its time on the wire and how many requests it started before any answer came. */
export interface SmallSample {
	wireMs: number;
	firstRoundTrip: number;
	failed: number;
	duplicates: number;
}

/**
 * From the first request the provider received to the last answer it gave. The pass that checks every item
 * before sending costs each case the same, so the wire is where the settings differ.
 */
export function smallSample(branch: SmallBranch, proxied: ProxiedRequest[]): SmallSample {
	const requests = requestsOf(branch, proxied);
	const { firstAt, lastAnswerAt } = wireSpan(requests);
	const firstAnswerAt = Math.min(
		...requests.map((request) => request.receivedAt + request.latencyMs),
	);
	const audit = auditAnswers(requests, branch.count);
	return {
		wireMs: lastAnswerAt - firstAt,
		firstRoundTrip: requests.filter((request) => request.receivedAt < firstAnswerAt).length,
		failed: audit.lost,
		duplicates: audit.duplicates,
	};
}

function requestsOf(branch: SmallBranch, proxied: ProxiedRequest[]): ProxiedRequest[] {
	const requests = proxied.filter((request) => request.tag === branch.runTag);
	if (requests.length === 0)
		throw new Error(`No request of case ${branch.key} reached the provider`);
	return requests;
}

/** Cases must not overlap on the wire, or each measured the other's load too. */
export function checkCasesRanInTurn(branches: SmallBranch[], proxied: ProxiedRequest[]): void {
	checkRanInTurn(
		branches.map((branch) => {
			const { firstAt, lastAnswerAt } = wireSpan(requestsOf(branch, proxied));
			return { key: branch.key, from: firstAt, to: lastAnswerAt };
		}),
	);
}
