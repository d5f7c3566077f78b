import type {
	ActiveFaultRule,
	FaultAction,
	FaultBodyKind,
	FaultRule,
	ResetFaultAction,
} from '../types';

const BODY_KINDS: readonly FaultBodyKind[] = [
	'json',
	'text',
	'html',
	'empty',
	'not-json',
	'ack-without-id',
];

/** Fault rules in the order they were added; the first rule that matches a request applies. */
export class FaultRules {
	private rules: ActiveFaultRule[] = [];
	private nextId = 1;

	add(rule: FaultRule): string {
		checkRule(rule);
		const id = `fault_${this.nextId++}`;
		this.rules.push({ id, rule: structuredClone(rule), remaining: rule.match?.times ?? null });
		return id;
	}

	clear(): void {
		this.rules = [];
	}

	list(): ActiveFaultRule[] {
		return structuredClone(this.rules);
	}

	/** A connection reset before the body is read can only be chosen by path: the body (and its `to`) is not known yet. */
	takeBeforeBody(path: string): ActiveFaultRule | null {
		return this.take(
			(fault) => isBeforeBodyReset(fault.rule.action) && pathMatches(fault.rule, path),
		);
	}

	takeAfterBody(path: string, to: unknown): ActiveFaultRule | null {
		return this.take(
			(fault) =>
				!isBeforeBodyReset(fault.rule.action) &&
				pathMatches(fault.rule, path) &&
				(fault.rule.match?.to === undefined || fault.rule.match.to === to),
		);
	}

	private take(matches: (fault: ActiveFaultRule) => boolean): ActiveFaultRule | null {
		const fault = this.rules.find(matches);
		if (!fault) return null;
		if (fault.remaining !== null) {
			fault.remaining -= 1;
			if (fault.remaining <= 0) this.rules = this.rules.filter((rule) => rule !== fault);
		}
		return fault;
	}
}

function pathMatches(rule: FaultRule, path: string): boolean {
	return rule.match?.path === undefined || rule.match.path === path;
}

function isBeforeBodyReset(action: FaultAction): action is ResetFaultAction {
	return 'reset' in action && action.reset === 'before-body';
}

/** Rules also arrive as JSON through the admin endpoint, so every field is checked. */
function checkRule(rule: FaultRule): void {
	if (rule === null || typeof rule !== 'object')
		throw new Error('A fault rule is an object { match?, action }');
	const { match, action } = rule;
	if (match !== undefined) {
		if (match === null || typeof match !== 'object')
			throw new Error('match must be an object { path?, to?, times? }');
		const unknown = Object.keys(match).filter((key) => !['path', 'to', 'times'].includes(key));
		if (unknown.length > 0)
			throw new Error(`Unknown match key ${unknown.join(', ')}; use path, to, times`);
		if (
			match.path !== undefined &&
			(typeof match.path !== 'string' || !match.path.startsWith('/'))
		) {
			throw new Error("match.path must be a path such as '/v1/sms/send'");
		}
		if (match.to !== undefined && typeof match.to !== 'string')
			throw new Error('match.to must be a phone number string');
		if (match.times !== undefined && !(Number.isInteger(match.times) && match.times >= 1)) {
			throw new Error('match.times must be a whole number, at least 1');
		}
	}
	if (action === null || typeof action !== 'object') {
		throw new Error('action must be one of { status, bodyKind }, { delayMs }, { reset }');
	}
	const kinds = ['status', 'delayMs', 'reset'].filter((key) => key in action);
	if (kinds.length !== 1) throw new Error('action must have exactly one of status, delayMs, reset');
	if ('reset' in action) {
		if (action.reset !== 'before-body' && action.reset !== 'after-body') {
			throw new Error("action.reset must be 'before-body' or 'after-body'");
		}
		if (action.reset === 'before-body' && match?.to !== undefined) {
			throw new Error(
				'A before-body reset happens before the body (and its to) is read: match it by path only',
			);
		}
	}
	if ('delayMs' in action && !(typeof action.delayMs === 'number' && action.delayMs >= 0)) {
		throw new Error('action.delayMs must be a number of milliseconds, 0 or more');
	}
	if ('status' in action) {
		if (!(Number.isInteger(action.status) && action.status >= 200 && action.status <= 599)) {
			throw new Error('action.status must be an HTTP status from 200 to 599');
		}
		if (!BODY_KINDS.includes(action.bodyKind))
			throw new Error(`action.bodyKind must be one of ${BODY_KINDS.join(', ')}`);
		if (action.body !== undefined && typeof action.body !== 'string')
			throw new Error('action.body must be a string');
		if (
			action.headers !== undefined &&
			(action.headers === null || typeof action.headers !== 'object')
		) {
			throw new Error('action.headers must be an object of header names to values');
		}
	}
}
