export function median(values: number[]): number {
	if (values.length === 0) throw new Error('median of no values');
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function sendsPerSecond(sends: number, wallMs: number): number {
	return (sends * 1000) / wallMs;
}

export interface Spread {
	median: number;
	min: number;
	max: number;
}

export function spreadOf(values: number[]): Spread {
	return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

/** `median (min–max)`: the middle repetition and how far the others strayed. */
export function formatSpread(
	{ median: middle, min, max }: Spread,
	format: (value: number) => string,
): string {
	return min === max ? format(middle) : `${format(middle)} (${format(min)}–${format(max)})`;
}

/** Nearest-rank percentile. */
export function percentile(values: number[], share: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * share) - 1))];
}

/** Each repetition rotates the order by one, so drift over the run (load, warm-up) hits every case alike. */
export function rotated<T>(items: T[], repetition: number): T[] {
	const shift = repetition % items.length;
	return [...items.slice(shift), ...items.slice(0, shift)];
}
