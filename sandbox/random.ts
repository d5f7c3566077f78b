/** A seedable random source, so a realistic lifecycle or a campaign can be replayed exactly. */
export interface Random {
	readonly seed: number;
	/** Uniform in [0, 1). */
	next(): number;
}

/** mulberry32: tiny, fast and good enough to spread delays; not for anything secret. */
export function createRandom(seed: number = randomSeed()): Random {
	let state = seed >>> 0;
	return {
		seed: seed >>> 0,
		next() {
			state = (state + 0x6d2b79f5) >>> 0;
			let t = state;
			t = Math.imul(t ^ (t >>> 15), t | 1);
			t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
			return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
		},
	};
}

export function randomSeed(): number {
	return Math.floor(Math.random() * 2 ** 32);
}

export function uniform(random: Random, min: number, max: number): number {
	return min + random.next() * (max - min);
}

/**
 * Log-normal around a median, clipped: network and handset delays have a long right tail (most quick, a few
 * very late), which a uniform spread would miss.
 */
export function logNormal(
	random: Random,
	shape: { medianMs: number; sigma: number; minMs: number; maxMs: number },
): number {
	// Box-Muller; 1 - next() keeps the logarithm finite.
	const normal =
		Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next());
	const value = shape.medianMs * Math.exp(shape.sigma * normal);
	return Math.min(shape.maxMs, Math.max(shape.minMs, value));
}
