const LUCKY_QUANTILE = 0.1;
// A step's requests leave in a burst, and a provider that queues meets the first of them at the old load: the
// last quarter of the rise is where the new limit's load is.
const PEAK_SHARE_OF_RISE = 0.75;
// Fewer than this many peak answers are one request's luck: the window is read from all its answers instead.
const MIN_PEAK_ANSWERS = 3;

/** The requests started since the limit's last decision, and the round trips of those answered. */
export interface RoundTripWindow {
	/** The number of the first request it counts: those started before it opened are counted in `openedWith`. */
	firstRequest: number;
	/** Round trips of the requests started in this window. */
	latencies: number[];
	/** Those of them started while the pool was full: a window that follows a step up begins below its limit. */
	loadedLatencies: number[];
	/** Those started in the last quarter of the rise from `openedWith` to the limit: what slow start reads. */
	peakLatencies: number[];
	peakInFlight: number;
	/** Requests in flight when it opened: started before the decision that opened it, so no sample of it. */
	openedWith: number;
}

/** What a closed window says about the limit it ran at. */
export interface WindowReading {
	/**
	 * The luckiest tenth's round trip: an event-loop stall on a busy n8n host delays every request in flight
	 * across it, while a provider that queues delays every request, the luckiest one too.
	 */
	lucky: number;
	/**
	 * The luckiest tenth of every answer in the window, however loaded: the provider's unloaded latency, when some
	 * of them met it.
	 */
	fastest: number;
	median: number;
	/** Answers per millisecond, by Little's law: as many answers per round trip as the limit holds in flight. */
	rate: number;
	/** Whether the run filled the limit: one it never filled (a paced run, the last items) says nothing about more. */
	filled: boolean;
}

export function openWindow(firstRequest: number, inFlight: number): RoundTripWindow {
	return {
		firstRequest,
		latencies: [],
		loadedLatencies: [],
		peakLatencies: [],
		peakInFlight: inFlight,
		openedWith: inFlight,
	};
}

function quantile(sorted: number[], share: number): number {
	return sorted[Math.floor((sorted.length - 1) * share)];
}

/** Files the round trip of a request started in `window` with `inFlightAtStart` in flight (itself included). */
export function recordSample(
	window: RoundTripWindow,
	roundTrip: number,
	inFlightAtStart: number,
	limit: number,
): void {
	window.latencies.push(roundTrip);
	if (inFlightAtStart >= limit) window.loadedLatencies.push(roundTrip);
	const rise = limit - window.openedWith;
	if (inFlightAtStart >= window.openedWith + rise * PEAK_SHARE_OF_RISE)
		window.peakLatencies.push(roundTrip);
}

function samplesToRead(window: RoundTripWindow, atPeak: boolean): number[] {
	const { latencies, loadedLatencies, peakLatencies } = window;
	if (atPeak && peakLatencies.length >= MIN_PEAK_ANSWERS) return peakLatencies;
	// Requests started while the pool was still filling after a step up met a shorter queue than the limit makes.
	return loadedLatencies.length * 2 >= latencies.length ? loadedLatencies : latencies;
}

/**
 * Reads a window that ran at `limit`: `atPeak`, from the requests started in the last quarter of its rise; else
 * from those started with the pool full when they are most of it.
 */
export function readWindow(window: RoundTripWindow, limit: number, atPeak = false): WindowReading {
	const sorted = [...samplesToRead(window, atPeak)].sort((a, b) => a - b);
	const median = quantile(sorted, 0.5);
	const all = [...window.latencies].sort((a, b) => a - b);
	return {
		lucky: quantile(sorted, LUCKY_QUANTILE),
		fastest: quantile(all, LUCKY_QUANTILE),
		median,
		rate: limit / median,
		filled: window.peakInFlight >= limit,
	};
}
