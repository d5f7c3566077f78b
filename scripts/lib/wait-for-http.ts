export async function waitForHttpOk(
	url: string,
	timeoutMs: number,
	isAlive: () => boolean = () => true,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	let lastProblem = 'no answer yet';
	while (Date.now() < deadline) {
		if (!isAlive()) throw new Error(`The process serving ${url} exited before it answered.`);
		try {
			const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
			if (response.ok) return;
			lastProblem = `HTTP ${response.status}`;
		} catch (error) {
			lastProblem = (error as Error).message;
		}
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
	throw new Error(
		`${url} did not answer 200 within ${Math.round(timeoutMs / 1000)} s (${lastProblem}).`,
	);
}
