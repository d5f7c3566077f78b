import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startLocalStack, type LocalStack, type RestartOptions } from '../../lib/local-stack';
import { ensureN8nInstalled } from '../../n8n/install';
import { CACHE_DIR } from '../../n8n/paths';
import { EventRecorder } from '../../../test/e2e/event-recorder';
import { BARE_TRIGGER_PACKAGE_DIR, waitUntilRegistered } from '../../../test/e2e/trigger-burst.e2e';
import type { BenchSandbox } from '../benchSandbox';
import type { ScenarioReport } from '../report';
import {
	CAMPAIGN_EVENTS_PER_SECOND,
	CASES,
	eventsScale,
	loadOf,
	OPEN_REQUESTS,
	SETTINGS,
	type CaseKey,
	type EventCase,
} from '../events/cases';
import { eventsReport, type SettingFigures } from '../events/eventsReport';
import { killMidBurst, type KillFigures, type StopSignal } from '../events/killMidBurst';
import { startReadinessGate } from '../events/readinessGate';
import { measureCase, peakRssMb, resetPeakRss, type CaseFigures } from '../events/measureCase';
import { measureQueueMode } from '../events/queueMode';
import { createEventTarget, type EntryKind, type EventTarget } from '../events/workflows';

const OWNER = {
	email: 'bench@example.com',
	password: 'Bench-events-2026',
	firstName: 'Bench',
	lastName: 'Owner',
};
/** Untimed deliveries to each workflow after every start: the first requests meet a cold process. */
const WARM_UP_EVENTS = 100;
const KILL_BURST_EVENTS = 6_000;

type Targets = Record<EntryKind, EventTarget>;

async function createTargets(stack: LocalStack, recorder: EventRecorder): Promise<Targets> {
	const targets = {} as Targets;
	for (const kind of [
		'floor',
		'webhook',
		'perEvent',
		'bare',
		'batching',
		'batchingLean',
	] as const) {
		targets[kind] = await createEventTarget(stack.rest, recorder, kind, kind);
		await waitUntilRegistered(targets[kind]);
	}
	return targets;
}

/** One target's untimed deliveries, once per n8n start, right before its first case. */
async function warmUp(
	stack: LocalStack,
	recorder: EventRecorder,
	target: EventTarget,
	tag: string,
): Promise<void> {
	await measureCase(
		stack.rest,
		recorder,
		target,
		{ events: WARM_UP_EVENTS, perPost: 1, openRequests: 20 },
		`${tag}-warm-${target.kind}`,
	);
}

function log(line: string): void {
	process.stderr.write(`    events: ${line}\n`);
}

function describeCase(key: string, figure: CaseFigures): string {
	const peak =
		figure.peakRssMb === undefined ? '' : `, n8n peak RSS ${figure.peakRssMb.toFixed(0)} MB`;
	return `${key}: ${figure.eventsPerSecond.toFixed(1)} events run/s, ${figure.executions} executions, p99 answer ${figure.p99AnswerMs} ms, ${figure.lost} lost, ${figure.runTwice} run twice (${figure.answers}; ${figure.seconds.toFixed(1)} s${peak})`;
}

/** Compared with one another at one event per execution: n8n's Webhook node, the trigger per event, a bare trigger. */
const PER_EXECUTION_CASES: CaseKey[] = ['webhook', 'perEvent', 'bare'];
/** Rounds of the compared cases, each forwards then backwards: every case runs in 2 × this many parts. */
const PER_EXECUTION_ROUNDS = 2;

interface PlannedPart {
	eventCase: EventCase;
	share: number;
	/** n8n is restarted before this part: the compared cases start in a fresh process. */
	freshN8n?: boolean;
}

/**
 * The cases with an execution per event, compared with one another, start in a fresh n8n (after the batching cases
 * one process ran the Webhook node 20.4 then 14.4 events/s, a bare trigger 0.95 × it where, fresh, 1.14 ×), and run
 * in parts, forwards then backwards and again (Webhook, per event, bare, bare, per event, Webhook, …), so that n8n's
 * drift over minutes of executions at once weighs on all alike.
 */
function comparedParts(compared: EventCase[], index: number): PlannedPart[] {
	const share = 1 / (2 * PER_EXECUTION_ROUNDS);
	const round = [...compared, ...[...compared].reverse()];
	const parts = Array.from({ length: PER_EXECUTION_ROUNDS }, () => round)
		.flat()
		.map((part) => ({ eventCase: part, share }));
	return [{ ...parts[0], freshN8n: index > 0 }, ...parts.slice(1)];
}

/**
 * The cases in order, each whole, but for two. Those with an execution per event run in parts (comparedParts). n8n's
 * floor runs in two halves, just before and just after the trigger alone, which is held to it: the floor drifts
 * within one n8n (one run read 390.2/s, and n8n then took 289.4 of the 300/s offered a moment later), so the
 * trigger alone is compared with the floor around it, not with a reading from before it. It is paced by the first
 * half, the only one measured by then; the case at 0.8 of the floor's rate by the slowest of the two halves and the
 * trigger alone (loadOf).
 */
function runPlan(cases: EventCase[]): PlannedPart[] {
	const compared = cases.filter((eventCase) => PER_EXECUTION_CASES.includes(eventCase.key));
	const floor = cases.find((eventCase) => eventCase.key === 'floor');
	const bracketed =
		floor !== undefined && cases.some((eventCase) => eventCase.key === 'atFloorRate');
	return cases.flatMap((eventCase, index): PlannedPart[] => {
		if (compared.length >= 2 && compared.includes(eventCase))
			return eventCase === compared[0] ? comparedParts(compared, index) : [];
		if (bracketed && eventCase === floor) return [{ eventCase, share: 0.5 }];
		if (bracketed && eventCase.key === 'atFloorRate')
			return [
				{ eventCase, share: 1 },
				{ eventCase: floor, share: 0.5 },
			];
		return [{ eventCase, share: 1 }];
	});
}

/** Two parts of one case as one: rates over the summed time, the worse p99 of the two. */
function combineParts(first: CaseFigures, second: CaseFigures): CaseFigures {
	const seconds = first.seconds + second.seconds;
	return {
		...first,
		load: { ...first.load, events: first.load.events + second.load.events },
		eventsPerSecond:
			(first.eventsPerSecond * first.seconds + second.eventsPerSecond * second.seconds) / seconds,
		seconds,
		eventsRun: first.eventsRun + second.eventsRun,
		executions: first.executions + second.executions,
		p99AnswerMs: Math.max(first.p99AnswerMs, second.p99AnswerMs),
		lost: first.lost + second.lost,
		lostEventIds: [...first.lostEventIds, ...second.lostEventIds],
		answeredByN8nStarting: [...first.answeredByN8nStarting, ...second.answeredByN8nStarting],
		runTwice: first.runTwice + second.runTwice,
		notAccepted: first.notAccepted + second.notAccepted,
		answers: `${first.answers}; then ${second.answers}`,
		// A half without a reading leaves the case without one, printed as such rather than as NaN.
		peakRssMb:
			first.peakRssMb === undefined || second.peakRssMb === undefined
				? undefined
				: Math.max(first.peakRssMb, second.peakRssMb),
	};
}

/** n8n started again, and every webhook of `targets` answering before anything is sent to it. */
async function restartN8n(
	stack: LocalStack,
	targets: EventTarget[],
	options: RestartOptions,
): Promise<void> {
	await stack.restartN8n(options);
	for (const target of targets) await waitUntilRegistered(target);
}

async function measureSettings(
	stack: LocalStack,
	recorder: EventRecorder,
	targets: Targets,
	stamp: string,
): Promise<SettingFigures[]> {
	const measured: SettingFigures[] = [];
	for (const [index, setting] of selectedSettings().entries()) {
		if (index > 0) await restartN8n(stack, Object.values(targets), { n8nEnv: setting.env });
		const cases = new Map<CaseKey, CaseFigures>();
		const floorReadings: number[] = [];
		const aloneReadings: number[] = [];
		// Each target warmed just before its first case: a warm-up of n8n's Webhook node runs 100 executions, whose
		// memory n8n keeps, and would count in the batching trigger's peak.
		const warmed = new Set<EntryKind>();
		for (const [part, { eventCase, share, freshN8n }] of runPlan(selectedCases()).entries()) {
			if (freshN8n) {
				await restartN8n(stack, Object.values(targets), { n8nEnv: setting.env });
				warmed.clear();
			}
			if (!warmed.has(eventCase.kind)) {
				await warmUp(stack, recorder, targets[eventCase.kind], `${stamp}-${setting.key}`);
				warmed.add(eventCase.kind);
			}
			const load = loadOf(setting, eventCase, floorReadings, aloneReadings);
			const perCase = resetPeakRss(stack.n8n.pid);
			const figure = await measureCase(
				stack.rest,
				recorder,
				targets[eventCase.kind],
				{ ...load, events: Math.round(load.events * share) },
				`${stamp}-${setting.key}-${eventCase.key}-${part}`,
			);
			if (perCase) figure.peakRssMb = peakRssMb(stack.n8n.pid);
			if (eventCase.key === 'floor') floorReadings.push(figure.eventsPerSecond);
			if (eventCase.key === 'atFloorRate') aloneReadings.push(figure.eventsPerSecond);
			const before = cases.get(eventCase.key);
			cases.set(eventCase.key, before ? combineParts(before, figure) : figure);
			log(`${setting.label}, ${describeCase(eventCase.key, figure)}`);
		}
		const casePeaks = [...cases.values()].map((figure) => figure.peakRssMb ?? Number.NaN);
		measured.push({
			setting,
			cases,
			peakRssMb: casePeaks.every(Number.isFinite)
				? Math.max(...casePeaks)
				: peakRssMb(stack.n8n.pid),
		});
	}
	return measured;
}

/** Under the last setting (lazy acquire, the one the README recommends), a burst killed by each signal. */
async function measureKills(
	stack: LocalStack,
	recorder: EventRecorder,
	target: EventTarget,
	stamp: string,
): Promise<KillFigures[]> {
	const kills: KillFigures[] = [];
	const load = {
		events: Math.max(400, Math.round(KILL_BURST_EVENTS * eventsScale())),
		perPost: 1,
		openRequests: OPEN_REQUESTS,
		eventsPerSecond: CAMPAIGN_EVENTS_PER_SECOND,
	};
	// BENCH_EVENTS_SIGNALS=SIGTERM stops n8n one way only while investigating; `none` not at all.
	const signals = (process.env.BENCH_EVENTS_SIGNALS?.split(',') ?? ['SIGKILL', 'SIGTERM']).filter(
		(signal) => signal !== 'none',
	) as StopSignal[];
	for (const signal of signals) {
		const restart = () => restartN8n(stack, [target], { signal });
		// As the README says to run n8n: webhooks reach it only once it is ready (BENCH_EVENTS_UNGATED=1 posts directly).
		const gate = process.env.BENCH_EVENTS_UNGATED
			? undefined
			: await startReadinessGate(new URL(target.url).origin);
		const figure = await killMidBurst(
			stack.rest,
			recorder,
			target,
			load,
			{
				what: gate ? `n8n ${signal} (behind a readiness check)` : `n8n ${signal}`,
				restart,
				origins: gate ? [gate.origin] : undefined,
			},
			`${stamp}-kill-${signal}`,
		);
		await gate?.stop();
		if (gate) log(`${signal}: the readiness check turned away ${gate.turnedAway()} attempts`);
		kills.push(figure);
		if (figure.lostNowhereIds.length > 0)
			log(`lost, for instance: ${figure.lostNowhereIds.slice(0, 5).join(', ')}`);
		log(
			`${signal} mid-burst: n8n away ${figure.downSeconds.toFixed(1)} s, ${describeCase(target.kind, figure)}`,
		);
	}
	return kills;
}

/**
 * The trigger the kills stop n8n under: batching, its default. BENCH_EVENTS_KILL_TARGET=perEvent kills the trigger
 * with one execution per delivery instead, while investigating (the report still labels the rows batching).
 */
function killTarget(targets: Targets): EventTarget {
	const kind = process.env.BENCH_EVENTS_KILL_TARGET ?? 'batching';
	if (kind !== 'batching' && kind !== 'perEvent')
		throw new Error('BENCH_EVENTS_KILL_TARGET: choose batching or perEvent');
	return targets[kind];
}

async function measureOneProcess(
	sandbox: BenchSandbox,
	recorder: EventRecorder,
	stamp: string,
	parts: Set<string>,
): Promise<{ settings: SettingFigures[]; kills: KillFigures[] }> {
	const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-nodes-messaging-bench-events-'));
	let stack: LocalStack | undefined;
	try {
		stack = await startLocalStack({
			userFolder: path.join(runDir, 'n8n'),
			packDir: path.join(CACHE_DIR, 'bench-pack'),
			reusePack: true,
			examples: [],
			owner: OWNER,
			provider: { baseUrl: sandbox.url, apiKey: sandbox.apiKey },
			fixturePackages: [BARE_TRIGGER_PACKAGE_DIR],
			n8nEnv: selectedSettings()[0].env,
			log,
		});
		const targets = await createTargets(stack, recorder);
		const settings = parts.has('one-process')
			? await measureSettings(stack, recorder, targets, stamp)
			: [];
		const kills = await measureKills(stack, recorder, killTarget(targets), stamp);
		await stack.stop();
		// BENCH_EVENTS_KEEP=1 keeps n8n's log and database for a look afterwards.
		if (process.env.BENCH_EVENTS_KEEP) log(`n8n's log and data kept in ${runDir}`);
		else fs.rmSync(runDir, { recursive: true, force: true });
		return { settings, kills };
	} catch (error) {
		await stack?.stop();
		throw new Error(`${(error as Error).message}\nn8n's log and data kept in ${runDir}`);
	}
}

/** BENCH_EVENTS_CASES=floor,atFloorRate measures some cases while investigating (the floor before any paced by it). */
function selectedCases(): typeof CASES {
	const keys = process.env.BENCH_EVENTS_CASES?.split(',');
	if (!keys) return CASES;
	const chosen = CASES.filter((eventCase) => keys.includes(eventCase.key));
	if (chosen.length !== keys.length)
		throw new Error(
			`BENCH_EVENTS_CASES: choose from ${CASES.map((entry) => entry.key).join(', ')}`,
		);
	return chosen;
}

/** BENCH_EVENTS_SETTINGS=lazy measures one n8n setting while investigating; both by default. */
function selectedSettings(): typeof SETTINGS {
	const keys = (process.env.BENCH_EVENTS_SETTINGS ?? 'defaults,lazy').split(',');
	const chosen = SETTINGS.filter((setting) => keys.includes(setting.key));
	if (chosen.length === 0) throw new Error('BENCH_EVENTS_SETTINGS: choose from defaults, lazy');
	return chosen;
}

/**
 * BENCH_EVENTS_PARTS=queue runs one part while investigating; `kills` alone is the one-process kills without the
 * settings' cases. Both one-process (its kills included) and queue by default.
 */
function selectedParts(): Set<string> {
	const parts = (process.env.BENCH_EVENTS_PARTS ?? 'one-process,queue').split(',');
	const unknown = parts.filter((part) => !['one-process', 'kills', 'queue'].includes(part));
	if (unknown.length > 0) throw new Error(`Unknown BENCH_EVENTS_PARTS ${unknown.join(', ')}`);
	return new Set(parts);
}

/**
 * Delivery events into a real n8n 2.40.7 with the packed package: the batching trigger, the trigger per event, n8n's
 * Webhook node and n8n's floor for a community trigger, side by side under each n8n setting; n8n killed mid-burst;
 * then queue mode. One repetition: each case is long enough on its own.
 */
export async function measureEvents(sandbox: BenchSandbox): Promise<ScenarioReport> {
	await ensureN8nInstalled((line) => process.stderr.write(`  ${line}\n`));
	const parts = selectedParts();
	const stamp = Date.now().toString(36);
	const recorder = new EventRecorder();
	await recorder.start();
	try {
		const { settings, kills } =
			parts.has('one-process') || parts.has('kills')
				? await measureOneProcess(sandbox, recorder, stamp, parts)
				: { settings: [], kills: [] };
		const queue = parts.has('queue')
			? await measureQueueMode(recorder, OWNER, stamp, log)
			: undefined;
		return eventsReport(settings, kills, queue);
	} finally {
		await recorder.stop();
	}
}
