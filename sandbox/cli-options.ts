import type { LifecycleConfig, WebhookConfig } from './types';

type Env = Record<string, string | undefined>;

const DEFAULT_STEP_MS = 1000;
const DEFAULT_LINGER_MS = 200;

/**
 * SANDBOX_LIFECYCLE=realistic plays spread delays (SANDBOX_TIME_SCALE, SANDBOX_SEED, SANDBOX_FAILED_SHARE);
 * anything else keeps the fixed steps of 1 s that the e2e suite and the demo count on.
 */
export function lifecycleFromEnv(env: Env): LifecycleConfig {
	const mode = env.SANDBOX_LIFECYCLE ?? 'fixed';
	if (mode === 'fixed') return { stepDelayMs: DEFAULT_STEP_MS };
	if (mode !== 'realistic')
		throw new Error(`SANDBOX_LIFECYCLE must be "fixed" or "realistic", got '${mode}'`);
	return {
		mode: 'realistic',
		...optionalNumber(env, 'SANDBOX_TIME_SCALE', 'timeScale'),
		...optionalNumber(env, 'SANDBOX_SEED', 'seed'),
		...optionalNumber(env, 'SANDBOX_FAILED_SHARE', 'failedShare'),
	};
}

/** SANDBOX_WEBHOOK_CONCURRENCY; SANDBOX_WEBHOOK_BATCH=N posts up to N events per POST (SANDBOX_WEBHOOK_LINGER_MS). */
export function webhooksFromEnv(env: Env): WebhookConfig {
	const concurrency = optionalNumber(env, 'SANDBOX_WEBHOOK_CONCURRENCY', 'maxConcurrent');
	const batch = optionalNumber(env, 'SANDBOX_WEBHOOK_BATCH', 'maxEvents');
	if (batch.maxEvents === undefined || batch.maxEvents === 0) return concurrency;
	const linger = optionalNumber(env, 'SANDBOX_WEBHOOK_LINGER_MS', 'lingerMs');
	return {
		...concurrency,
		batch: { maxEvents: batch.maxEvents, lingerMs: linger.lingerMs ?? DEFAULT_LINGER_MS },
	};
}

function optionalNumber<K extends string>(
	env: Env,
	name: string,
	key: K,
): Partial<Record<K, number>> {
	const text = env[name];
	if (text === undefined || text.trim() === '') return {};
	const value = Number(text);
	if (!Number.isFinite(value)) throw new Error(`${name} must be a number, got '${text}'`);
	return { [key]: value } as Partial<Record<K, number>>;
}
