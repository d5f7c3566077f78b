import { formatNumber, type ScenarioReport, type TargetCheck } from '../report';
import { DEFAULT_BATCH_WAIT_MS } from '../../../nodes/MessagingTrigger/batchSettings';
import {
	CASES,
	OPEN_REQUESTS,
	OPEN_REQUESTS_100_PER_POST,
	CAMPAIGN_EVENTS_PER_SECOND,
	SETTINGS,
	type CaseKey,
	type Setting,
} from './cases';
import type { KillFigures } from './killMidBurst';
import type { CaseFigures } from './measureCase';
import type { QueueFigures } from './queueMode';

export interface SettingFigures {
	setting: Setting;
	cases: Map<CaseKey, CaseFigures>;
	peakRssMb: number;
}

/** n8n's peak resident memory must stay well inside a small (2 GB) n8n host, whatever the load: held events are capped. */
export const PEAK_RSS_BOUND_MB = 1_024;
/**
 * At n8n's defaults n8n itself holds an expression isolate per open request, with no execution at all (the floor
 * case): what the trigger may add over that is its executions of at most Max Events per Execution and the events it
 * holds (capped at 10,000). Against the floor under the same load (the campaign's events at its pace): an unpaced
 * floor of fewer events is a lighter load.
 */
export const PEAK_RSS_OVER_FLOOR = 1.5;
const MIN_EVENTS_PER_EXECUTION = 50;
const MIN_EVENTS_PER_SECOND_100_PER_POST = 300;

const ms = (value: number) => (Number.isNaN(value) ? '–' : `${formatNumber(value)} ms`);
const rate = (value: number) => formatNumber(value, 1);

function caseRow(figures: SettingFigures, key: CaseKey, label: string): string[] {
	const figure = figures.cases.get(key);
	if (!figure) return [label, 'not run', ...HEADER.slice(2).map(() => '')];
	const floor = figures.cases.get('floor')?.eventsPerSecond ?? Number.NaN;
	const webhook = figures.cases.get('webhook')?.eventsPerSecond ?? Number.NaN;
	const isFloor = key === 'floor';
	return [
		label,
		`${formatNumber(figure.load.events)} (${figure.load.perPost}/POST${figure.load.eventsPerSecond ? `, ${figure.load.eventsPerSecond}/s offered` : ''})`,
		rate(figure.eventsPerSecond),
		`${formatNumber(figure.eventsPerSecond / floor, 2)} × / ${formatNumber(figure.eventsPerSecond / webhook, 2)} ×`,
		isFloor ? '0' : formatNumber(figure.executions),
		isFloor || figure.executions === 0
			? '–'
			: formatNumber(figure.eventsRun / figure.executions, 1),
		ms(figure.p99AnswerMs),
		`${figure.lost} / ${figure.runTwice}${figure.notAccepted ? ` (${figure.notAccepted} never accepted)` : ''}`,
		figure.peakRssMb === undefined ? '–' : formatNumber(figure.peakRssMb),
		figure.answers,
	];
}

const HEADER = [
	'Case',
	'Events sent',
	'Events run/s',
	'× floor / × Webhook node',
	'Executions',
	'Events per execution',
	'p99 answer',
	'Lost / run twice',
	"n8n's peak RSS, MB",
	'Answers (every attempt)',
];

function settingTable(figures: SettingFigures) {
	return {
		caption: `${figures.setting.label} (one n8n process; peak RSS ${formatNumber(figures.peakRssMb)} MB)`,
		header: HEADER,
		rows: CASES.map((eventCase) => caseRow(figures, eventCase.key, eventCase.label)),
	};
}

function lostCell(kill: KillFigures): string {
	const starting = kill.answeredByN8nStarting.length;
	const held = [
		kill.heldByN8n ? `${kill.heldByN8n} in n8n's crashed executions` : '',
		starting ? `${starting} answered 200 by n8n while starting, never reaching the trigger` : '',
	].filter(Boolean);
	const heldText = held.length ? ` (${held.join('; ')})` : '';
	return `${kill.lost}${heldText} / ${kill.runTwice}${kill.notAccepted ? ` (${kill.notAccepted} never accepted)` : ''}`;
}

function afterRetryCell(kill: KillFigures): string {
	const failures = kill.afterRetry.failures.length
		? `; ${kill.afterRetry.failures.length} retries refused`
		: '';
	return `${kill.afterRetry.lost} / ${kill.afterRetry.runTwice}${failures}`;
}

function killTable(kills: KillFigures[]) {
	return {
		caption:
			'n8n stopped mid-burst and started again on the same database (trigger batching); then Retry of every execution n8n shows as crashed',
		header: [
			'Signal',
			'Events sent',
			'n8n away',
			'Executions',
			'Unfinished executions',
			'Lost / run twice',
			'After Retry: lost / run twice',
			'Answers (every attempt)',
		],
		rows: kills.map((kill) => [
			kill.what,
			`${formatNumber(kill.load.events)} (${kill.load.perPost}/POST, ${kill.load.eventsPerSecond ?? '∞'}/s offered)`,
			`${formatNumber(kill.downSeconds, 1)} s`,
			formatNumber(kill.executions),
			kill.unfinished,
			lostCell(kill),
			afterRetryCell(kill),
			kill.answers,
		]),
	};
}

function queueTable(queue: QueueFigures) {
	const row = (label: string, figure: CaseFigures) => [
		label,
		`${formatNumber(figure.load.events)} (${figure.load.perPost}/POST)`,
		rate(figure.eventsPerSecond),
		formatNumber(figure.executions),
		ms(figure.p99AnswerMs),
		`${figure.lost} / ${figure.runTwice}${figure.notAccepted ? ` (${figure.notAccepted} never accepted)` : ''}`,
		figure.answers,
	];
	return {
		caption:
			'queue mode, lazy acquire, trigger batching (main, webhook processes, one worker, Postgres, Redis)',
		header: [
			'Case',
			'Events sent',
			'Events run/s',
			'Executions',
			'p99 answer',
			'Lost / run twice',
			'Answers (every attempt)',
		],
		rows: [
			row('one webhook process', queue.oneWebhook),
			row('two webhook processes', queue.twoWebhooks),
			row(
				`two, one killed (SIGKILL) mid-burst, away ${formatNumber(queue.kill.downSeconds, 1)} s`,
				queue.kill,
			),
		],
	};
}

function queueTargets(queue: QueueFigures): TargetCheck[] {
	const gain = queue.twoWebhooks.eventsPerSecond / queue.oneWebhook.eventsPerSecond;
	return [
		check(
			'Events, queue mode: a second webhook process adds throughput',
			`${formatNumber(gain, 2)} × (${rate(queue.twoWebhooks.eventsPerSecond)} vs ${rate(queue.oneWebhook.eventsPerSecond)}/s)`,
			gain > 1,
		),
		...[queue.oneWebhook, queue.twoWebhooks].map((figure, index) =>
			check(
				`Events, queue mode: 0 lost, 0 run twice, ${index + 1} webhook process${index ? 'es' : ''}`,
				`${figure.lost} lost, ${figure.runTwice} run twice, ${figure.notAccepted} never accepted`,
				figure.lost + figure.runTwice + figure.notAccepted === 0,
			),
		),
	];
}

function check(target: string, measured: string, holds: boolean): TargetCheck {
	return { target, measured, holds };
}

/** The batching trigger's cases: what it holds is capped, so n8n's memory under them is the bound the trigger keeps. */
const BATCHING_CASES: CaseKey[] = ['batching', 'atFloorRate', 'belowFloorRate', 'batching100'];

/**
 * The bound applies to n8n under the batching trigger's load. n8n's Webhook node and the per-event trigger run
 * hundreds of executions at once, each with its own expression isolate: n8n's memory, printed beside it.
 */
function triggerPeakCheck(
	cases: Map<CaseKey, CaseFigures>,
	settingPeakMb: number,
	where: string,
): TargetCheck {
	const peaks = BATCHING_CASES.map((key) => cases.get(key)?.peakRssMb).filter(
		(peak): peak is number => peak !== undefined,
	);
	const floorPeak =
		cases.get('floorCampaign')?.peakRssMb ?? cases.get('floor')?.peakRssMb ?? Number.NaN;
	const bound = Math.max(
		PEAK_RSS_BOUND_MB,
		Number.isNaN(floorPeak) ? 0 : floorPeak * PEAK_RSS_OVER_FLOOR,
	);
	const perCase = peaks.length > 0;
	const peak = perCase ? Math.max(...peaks) : settingPeakMb;
	const measured = BATCHING_CASES.some((key) => cases.has(key));
	let value = `${formatNumber(peak)} MB (bound ${formatNumber(bound)} MB; the floor ${formatNumber(floorPeak)} MB)`;
	if (!measured) value = 'no batching case in this run';
	else if (!perCase)
		value = `${formatNumber(peak)} MB (since n8n started: the kernel refused a per-case reading)`;
	return check(
		`Events: n8n's peak RSS under the batching trigger's load ≤ the larger of ${formatNumber(PEAK_RSS_BOUND_MB)} MB and ${PEAK_RSS_OVER_FLOOR} × n8n's floor's peak at the campaign's pace${where}`,
		value,
		measured && peak <= bound,
	);
}

function settingTargets({ setting, cases, peakRssMb }: SettingFigures): TargetCheck[] {
	const get = (key: CaseKey) => cases.get(key);
	const [floor, webhook, perEvent, bare, batching, atFloorRate, belowFloorRate, batching100] = (
		[
			'floor',
			'webhook',
			'perEvent',
			'bare',
			'batching',
			'atFloorRate',
			'belowFloorRate',
			'batching100',
		] as const
	).map(get);
	const checks: TargetCheck[] = [];
	const where = ` (${setting.label})`;
	if (atFloorRate && floor) {
		const ratio = atFloorRate.eventsPerSecond / floor.eventsPerSecond;
		checks.push(
			check(
				`Events: one event per POST ≥ 0.8 × n8n's floor, offered at the floor's rate, the trigger alone (as the floor)${where}`,
				`${formatNumber(ratio, 2)} × (${rate(atFloorRate.eventsPerSecond)} vs ${rate(floor.eventsPerSecond)}/s)`,
				ratio >= 0.8,
			),
		);
	}
	if (batching && webhook) {
		checks.push(
			check(
				`Events: one event per POST ≥ n8n's Webhook node${where}`,
				`${rate(batching.eventsPerSecond)} vs ${rate(webhook.eventsPerSecond)}/s`,
				batching.eventsPerSecond >= webhook.eventsPerSecond,
			),
		);
	}
	if (setting.key === 'lazy' && perEvent && webhook) {
		const ratio = perEvent.eventsPerSecond / webhook.eventsPerSecond;
		// Printed beside it: what n8n gives a community trigger that does nothing (its drift is not the trigger's).
		const besideBare = bare
			? ` (a bare community trigger ${formatNumber(bare.eventsPerSecond / webhook.eventsPerSecond, 2)} ×; the trigger ${formatNumber(perEvent.eventsPerSecond / bare.eventsPerSecond, 2)} × the bare one)`
			: '';
		checks.push(
			check(
				`Events: per-event mode ≥ 0.9 × n8n's Webhook node${where}`,
				`${formatNumber(ratio, 2)} ×${besideBare}`,
				ratio >= 0.9,
			),
		);
	}
	if (atFloorRate) {
		const perExecution = atFloorRate.eventsRun / Math.max(1, atFloorRate.executions);
		checks.push(
			check(
				`Events: ≤ 1 execution per ${MIN_EVENTS_PER_EXECUTION} events at the floor's rate, default batch settings${where}`,
				`${formatNumber(perExecution, 1)} events per execution at ${atFloorRate.load.eventsPerSecond}/s offered`,
				perExecution >= MIN_EVENTS_PER_EXECUTION,
			),
		);
	}
	if (belowFloorRate)
		checks.push(
			check(
				`Events: p99 answer ≤ max wait + 1 s at 0.8 × the floor's rate or the trigger alone's, the slower (a rate n8n sustains)${where}`,
				ms(belowFloorRate.p99AnswerMs),
				belowFloorRate.p99AnswerMs <= DEFAULT_BATCH_WAIT_MS + 1_000,
			),
		);
	if (batching100)
		checks.push(
			check(
				`Events: ≥ ${MIN_EVENTS_PER_SECOND_100_PER_POST} events/s at 100 per POST${where}`,
				`${rate(batching100.eventsPerSecond)}/s`,
				batching100.eventsPerSecond >= MIN_EVENTS_PER_SECOND_100_PER_POST,
			),
		);
	const all = [...cases.values()];
	checks.push(
		check(
			`Events: 0 lost, 0 run twice${where}`,
			`${sum(all, 'lost')} lost, ${sum(all, 'runTwice')} run twice, ${sum(all, 'notAccepted')} never accepted`,
			sum(all, 'lost') + sum(all, 'runTwice') + sum(all, 'notAccepted') === 0,
		),
		triggerPeakCheck(cases, peakRssMb, where),
	);
	return checks;
}

/**
 * A kill's guarantee: no event answered 2xx outside an execution n8n accepted, none run twice. What a Retry of n8n's
 * crashed executions then does is printed, not targeted: a crashed execution may have run its last node before the
 * kill, and its Retry runs those events again.
 */
function killTarget(kill: KillFigures): TargetCheck {
	return check(
		`Events: ${kill.what} mid-burst, 0 answered 2xx outside an execution n8n accepted, 0 run twice`,
		`${kill.lostNowhereIds.length} outside, ${kill.heldByN8n} in n8n's crashed executions, ${kill.answeredByN8nStarting.length} answered 200 by n8n while starting (never reached the trigger), ${kill.runTwice} run twice, ${kill.notAccepted} never accepted`,
		kill.lostNowhereIds.length + kill.runTwice + kill.notAccepted === 0,
	);
}

function sum(figures: CaseFigures[], field: 'lost' | 'runTwice' | 'notAccepted'): number {
	return figures.reduce((total, figure) => total + figure[field], 0);
}

export function eventsReport(
	settings: SettingFigures[],
	kills: KillFigures[],
	queue?: QueueFigures,
): ScenarioReport {
	const allKills = queue ? [...kills, queue.kill] : kills;
	return {
		title: 'Delivery events in n8n',
		setup:
			`a real n8n 2.40.7, one process, the packed package; signed status events (the sandbox's signing) from a sender with ${OPEN_REQUESTS} open requests (${OPEN_REQUESTS_100_PER_POST} at 100 events per POST), ` +
			`retrying every delivery not answered 2xx; the floor at the campaign's pace, and unpaced in two halves just before and after the trigger alone (n8n's floor drifts within one process); the batching trigger's one-per-POST campaign offered at ${CAMPAIGN_EVENTS_PER_SECOND} events/s (at n8n's defaults past its capacity), then at the rate the floor's first half measured (its own rate and batch sizes: the workflow is the trigger alone, as the floor's is; a node after it costs n8n the same whatever the trigger, under lazy acquire about 1 ms an item for an expression per item and an isolate, ~85 ms of CPU, per execution for any expression) and at 0.8 of the slowest of the two halves and the trigger alone (a rate n8n sustains: the time to an answer; at or past capacity that time is n8n's own queue, the floor's included); n8n's peak RSS per case (its high-water mark reset before each), every other case as fast as the open requests allow; ` +
			`events counted from what n8n's executions ran (a recorder node posted once per execution; for the trigger alone, its output read back from n8n's stored executions), executions from n8n's execution list; ${SETTINGS.map((setting) => setting.label).join(' and ')}`,
		measures: settings.map((figures) => ({
			label: `n8n's peak RSS, ${figures.setting.label}`,
			value: `${formatNumber(figures.peakRssMb)} MB`,
		})),
		tables: [
			...settings.map(settingTable),
			...(allKills.length > 0 ? [killTable(allKills)] : []),
			...(queue ? [queueTable(queue)] : []),
		],
		targets: [
			...settings.flatMap(settingTargets),
			...(queue ? queueTargets(queue) : []),
			...allKills.map(killTarget),
		],
	};
}
