import type { E2eContext } from './context';
import type { CheckRunner } from './harness';

export async function checkEditor(_context: E2eContext, _runner: CheckRunner): Promise<void> {}
