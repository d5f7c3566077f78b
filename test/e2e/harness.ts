/** A minimal runner for checks that share one expensive environment (a real n8n), with the closing line CI reads. */
export class CheckRunner {
	private passed = 0;
	private failed = 0;
	private readonly failures: string[] = [];

	async check(name: string, body: () => Promise<void> | void): Promise<boolean> {
		const started = Date.now();
		try {
			await body();
			this.passed += 1;
			console.log(`  ✓ ${name} (${Date.now() - started} ms)`);
			return true;
		} catch (error) {
			this.failed += 1;
			const message = error instanceof Error ? error.message : String(error);
			this.failures.push(`${name}: ${message}`);
			console.log(
				`  ✗ ${name} (${Date.now() - started} ms)\n      ${message.split('\n').join('\n      ')}`,
			);
			return false;
		}
	}

	/** Marks a check that could not run because what it needs failed earlier: it counts as a failure. */
	skipBecause(name: string, reason: string): void {
		this.failed += 1;
		this.failures.push(`${name}: not run, ${reason}`);
		console.log(`  ✗ ${name} (not run: ${reason})`);
	}

	get hasFailures(): boolean {
		return this.failed > 0;
	}

	summary(): string {
		return `${this.passed} passed, ${this.failed} failed`;
	}
}

export function assert(condition: unknown, message: string): asserts condition {
	if (!condition) throw new Error(message);
}

/** JSON with object keys sorted, so equal data compares equal whatever order its keys were written in. */
function canonical(value: unknown): string {
	return JSON.stringify(value, (_key, inner: unknown) =>
		inner && typeof inner === 'object' && !Array.isArray(inner)
			? Object.fromEntries(
					Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
				)
			: inner,
	);
}

export function assertEqual<T>(actual: T, expected: T, what: string): void {
	const a = canonical(actual);
	const e = canonical(expected);
	if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

/** Runs a check script: exits with its code, or with 1 and a "0 passed, 1 failed" summary when set-up throws. */
export function runCheckScript(main: () => Promise<number>): void {
	main().then(
		(code) => process.exit(code),
		(error: Error) => {
			console.error(error.stack ?? error.message);
			console.log('0 passed, 1 failed');
			process.exit(1);
		},
	);
}
