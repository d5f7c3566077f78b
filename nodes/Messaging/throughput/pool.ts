/**
 * Runs `worker(0) … worker(count - 1)` with at most `concurrency` in flight, starting items in index order.
 * Once `shouldContinue` answers false or a worker throws, no new item starts; in-flight items settle first,
 * so a caller never loses track of a request that is already on the wire.
 */
export async function forEachWithConcurrency(
	count: number,
	concurrency: number,
	worker: (index: number) => Promise<void>,
	shouldContinue: () => boolean = () => true,
): Promise<void> {
	let nextIndex = 0;
	let firstError: { error: unknown } | undefined;

	const runLane = async () => {
		while (nextIndex < count && !firstError && shouldContinue()) {
			const index = nextIndex++;
			try {
				await worker(index);
			} catch (error) {
				firstError ??= { error };
			}
		}
	};

	const laneCount = Math.max(1, Math.min(Math.floor(concurrency) || 1, count));
	await Promise.all(Array.from({ length: laneCount }, runLane));
	if (firstError) throw firstError.error;
}
