import defaultSeed from './fixtures/seed.json';
import type { SandboxSeed } from './types';

export const DEFAULT_SEED: SandboxSeed = defaultSeed as SandboxSeed;

export const SANDBOX_API_KEY = DEFAULT_SEED.account.apiKey;
export const SANDBOX_SIGNING_SECRET = DEFAULT_SEED.account.signingSecret;
