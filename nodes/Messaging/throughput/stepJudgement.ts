// A step up that lengthened the round trip must raise the answers per second by this share of its own size
// (at least the floor): a provider at capacity answers no faster for more in flight, a busy n8n host still does.
const GAIN_SHARE = 0.25;
const MIN_GAIN = 0.04;

/** The limit before the latest step up, and the answers per second it delivered. */
export interface Step {
	fromLimit: number;
	fromRate: number;
	/** The rate and round trip of the first slow round trip at the new limit, while a second one is awaited. */
	firstRate?: number;
	firstRoundTrip?: number;
}

export type StepVerdict =
	| { kind: 'awaitSecond'; step: Step }
	/** More in flight bought more answers: what the new limit delivers, and the round trip that is its normal. */
	| { kind: 'paid'; rate: number; roundTrip: number }
	/** The step bought nothing but a longer queue. */
	| { kind: 'unpaid' };

/**
 * Judges a step up to `limit` that lengthened the round trip by what it delivered. On a fast provider one round
 * trip's rate is as noisy as n8n's event loop, so a step is judged on two: their mean rate against the rate before
 * the step. A stall only ever slows a round trip, so of the two the better rate and round trip are what it paid.
 */
export function judgeStep(step: Step, limit: number, rate: number, roundTrip: number): StepVerdict {
	if (step.firstRate === undefined)
		return { kind: 'awaitSecond', step: { ...step, firstRate: rate, firstRoundTrip: roundTrip } };
	const required = Math.max(MIN_GAIN, GAIN_SHARE * (limit / step.fromLimit - 1));
	if ((step.firstRate + rate) / 2 < step.fromRate * (1 + required)) return { kind: 'unpaid' };
	return {
		kind: 'paid',
		rate: Math.max(step.firstRate, rate),
		roundTrip: Math.min(step.firstRoundTrip ?? roundTrip, roundTrip),
	};
}
