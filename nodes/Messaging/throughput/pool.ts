/**
 * Runs `worker(0) … worker(count - 1)`, starting items in index order while fewer than `concurrency` are in
 * flight. `concurrency` is a number or is asked again before each start, so a limit that changes while the run
 * goes on takes effect at the next start; items already running are never interrupted.
 * Once `shouldContinue` answers false or a worker throws, no new item starts; in-flight items settle first,
 * so a caller never loses track of a request that is already on the wire.
 */
export async function forEachWithConcurrency(
	count: number,
	concurrency: number | (() => number),
	worker: (index: number) => Promise<void>,
	shouldContinue: () => boolean = () => true,
): Promise<void> {
	const limitNow = typeof concurrency === 'number' ? () => concurrency : concurrency;
	let nextIndex = 0;
	let inFlight = 0;
	let firstError: { error: unknown } | undefined;

	await new Promise<void>((resolve) => {
		const mayStart = () =>
			nextIndex < count &&
			!firstError &&
			shouldContinue() &&
			inFlight < Math.max(1, Math.floor(limitNow()) || 1);
		const startWhatMay = () => {
			while (mayStart()) {
				const index = nextIndex++;
				inFlight++;
				void runOne(index);
			}
			if (inFlight === 0) resolve();
		};
		const runOne = async (index: number) => {
			try {
				await worker(index);
			} catch (error) {
				firstError ??= { error };
			}
			inFlight--;
			startWhatMay();
		};
		startWhatMay();
	});
	if (firstError) throw firstError.error;
}
