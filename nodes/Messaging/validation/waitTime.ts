import { WAIT_INDEFINITELY } from 'n8n-workflow';
import { z } from 'zod/v3';

import { addFieldIssue, describeType } from './fieldSchemas';

const UNIT_MS: Record<string, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

const FIX_INTERVAL = 'Set Options > Limit Wait Time > Amount to a number above 0, e.g. 45 minutes.';
const FIX_DATE =
	'Set Options > Limit Wait Time > Max Date and Time to a future date, e.g. 2026-12-01T18:00:00Z.';

function interval(values: Record<string, unknown>, now: number, ctx: z.RefinementCtx): Date {
	const amount = Number(values.resumeAmount ?? 1);
	const unitMs = UNIT_MS[String(values.resumeUnit ?? 'hours')];
	if (!Number.isFinite(amount) || amount <= 0) {
		addFieldIssue(
			ctx,
			`has the amount ${String(values.resumeAmount)}, but it must be above 0`,
			FIX_INTERVAL,
		);
		return z.NEVER;
	}
	if (unitMs === undefined) {
		addFieldIssue(
			ctx,
			`has the unit "${String(values.resumeUnit)}"`,
			'Choose Minutes, Hours or Days as the Unit.',
		);
		return z.NEVER;
	}
	return new Date(now + amount * unitMs);
}

function specifiedTime(value: unknown, now: number, ctx: z.RefinementCtx): Date {
	const date =
		typeof value === 'string' || typeof value === 'number' || value instanceof Date
			? new Date(value)
			: undefined;
	if (date === undefined || Number.isNaN(date.getTime())) {
		addFieldIssue(
			ctx,
			`has ${describeType(value)} "${String(value)}" as Max Date and Time, not a date`,
			FIX_DATE,
		);
		return z.NEVER;
	}
	if (date.getTime() <= now) {
		addFieldIssue(
			ctx,
			`ends at ${date.toISOString()}, which is already past: nobody could answer`,
			FIX_DATE,
		);
		return z.NEVER;
	}
	return date;
}

/**
 * When the execution stops waiting, n8n's way (the `configureWaitTillDate` rules of its send-and-wait nodes): no
 * limit waits indefinitely, an interval counts from now, a date is taken as it is. A date already past is refused.
 */
export function waitTimeLimit(now: number) {
	return z.unknown().transform((value, ctx): Date => {
		const values = (value as { values?: unknown } | undefined)?.values;
		if (value === undefined || value === null || value === '' || values === undefined)
			return WAIT_INDEFINITELY;
		if (typeof values !== 'object' || values === null) {
			addFieldIssue(ctx, `is ${describeType(values)}`, FIX_INTERVAL);
			return z.NEVER;
		}
		const limit = values as Record<string, unknown>;
		if (limit.limitType === 'atSpecifiedTime') return specifiedTime(limit.maxDateAndTime, now, ctx);
		return interval(limit, now, ctx);
	});
}
