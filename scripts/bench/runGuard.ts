/** Rejects when `work` takes longer than `limitMs`, so a stuck run breaks the benchmark instead of hanging it. */
export async function withinTime<T>(work: Promise<T>, limitMs: number, label: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const deadline = new Promise<never>((_, reject) => {
		timer = setTimeout(
			() => reject(new Error(`${label} did not finish within ${limitMs / 1000} s`)),
			limitMs,
		);
	});
	try {
		return await Promise.race([work, deadline]);
	} finally {
		clearTimeout(timer);
	}
}
