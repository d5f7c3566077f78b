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
 * Each size sends with a credential of its own: the pace the automatic limit learns is kept per credential and
 * base URL, so each size's first execution meets a provider the process has not learnt yet.
 */
export function sizeCredential(size: number) {
	return { id: `benchSmall${size}`, name: `Messaging Sandbox (small campaigns, ${size})` };
}

export const subWorkflowId = (size: number) => `smallSecond${size}`;

/**
 * The second execution of one size: Rows → the Messaging node at its defaults, with the size's credential, the
 * rows tagged by the caller. One per size for the whole scenario, published once.
 */
export function secondExecutionWorkflow(size: number, api: { baseUrl: string; apiKey: string }) {
	const branch: Branch = {
		key: `${size}-${SECOND}`,
		runTag: '',
		tagFromInput: true,
		count: size,
		sender: { kind: 'messaging', options: {}, credential: sizeCredential(size) },
	};
	return campaignWorkflow(subWorkflowId(size), [branch], api, 0, 'subWorkflow');
}

/** A case of one size: the Messaging node at a fixed setting, or at its defaults in one or the next execution. */
interface SmallCase {
	key: string;
	options: Record<string, unknown>;
	/** Runs as an execution of its own (a sub-workflow) right after the first automatic one. */
	secondExecution?: boolean;
}

/**
 * The cases of one size in the order they run: the fixed settings and the pair of automatic executions rotate,
 * the pair staying together so the second finds what the first learnt and nothing else.
 */
function casesInTurn(repetition: number): SmallCase[][] {
	const units: SmallCase[][] = FIXED_SETTINGS.map((limit) => [
		{ key: fixedKey(limit), options: { maxConcurrency: limit } },
	]);
	units.push([
		{ key: FIRST, options: {} },
		{ key: SECOND, options: {}, secondExecution: true },
	]);
	return rotated(units, repetition);
}

export interface SmallBranch extends Branch {
	size: number;
	caseKey: string;
}

/** Every case of every size for one provider and repetition, in the order they run; sizes rotate too. */
export function smallBranches(
	providerKey: string,
	repetition: number,
	stamp: string,
): SmallBranch[] {
	return rotated(SMALL_SIZES, repetition).flatMap((size) =>
		casesInTurn(repetition)
			.flat()
			.map((entry) => {
				const key = `${size}-${entry.key}`;
				const sender: Sender = {
					kind: 'messaging',
					options: entry.options,
					credential: sizeCredential(size),
				};
				const runTag = `small-${providerKey}-${key}-${repetition}-${stamp}`;
				return {
					key,
					size,
					caseKey: entry.key,
					runTag,
					count: size,
					sender,
					...(entry.secondExecution && { subWorkflowId: subWorkflowId(size) }),
				};
			}),
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
