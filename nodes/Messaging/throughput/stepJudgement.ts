// A step up that lengthened the round trip must raise the answers per second by this share of its own size
// (at least the floor): a provider at capacity answers no faster for more in flight, a busy n8n host still does.
const GAIN_SHARE = 0.25;
const MIN_GAIN = 0.04;

/** The limit before the latest step up, and the answers per second it delivered. */
export interface Step {
	fromLimit: number;
	fromRate: number;
	/** The rate of the first slow round trip at the new limit, while a second one is awaited. */
	firstRate?: number;
}

export type StepVerdict =
	| { kind: 'awaitSecond'; step: Step }
	/** More in flight bought more answers. */
	| { kind: 'paid' }
	/** The step bought nothing but a longer queue. */
	| { kind: 'unpaid' };

/**
 * Judges a step up to `limit` that lengthened the round trip by what it delivered. On a fast provider one round
 * trip's rate is as noisy as n8n's event loop, so a step is judged on two: their mean rate against the rate before
 * the step.
 */
export function judgeStep(step: Step, limit: number, rate: number): StepVerdict {
	if (step.firstRate === undefined)
		return { kind: 'awaitSecond', step: { ...step, firstRate: rate } };
	const required = Math.max(MIN_GAIN, GAIN_SHARE * (limit / step.fromLimit - 1));
	return (step.firstRate + rate) / 2 < step.fromRate * (1 + required)
		? { kind: 'unpaid' }
		: { kind: 'paid' };
}
