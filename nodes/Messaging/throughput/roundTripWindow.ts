const LUCKY_QUANTILE = 0.1;

/** The requests started since the limit's last decision, and the round trips of those answered. */
export interface RoundTripWindow {
	startedAt: number;
	/** Round trips of the requests started in this window. */
	latencies: number[];
	/** Those of them started while the pool was full: a window that follows a step up begins below its limit. */
	loadedLatencies: number[];
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
	median: number;
	/** Answers per millisecond, by Little's law: as many answers per round trip as the limit holds in flight. */
	rate: number;
	/** Whether the run filled the limit: one it never filled (a paced run, the last items) says nothing about more. */
	filled: boolean;
}

export function openWindow(startedAt: number, inFlight: number): RoundTripWindow {
	return {
		startedAt,
		latencies: [],
		loadedLatencies: [],
		peakInFlight: inFlight,
		openedWith: inFlight,
	};
}

function quantile(sorted: number[], share: number): number {
	return sorted[Math.floor((sorted.length - 1) * share)];
}

/** Reads a window that ran at `limit`, from the requests started with the pool full when they are most of it. */
export function readWindow(window: RoundTripWindow, limit: number): WindowReading {
	const { latencies, loadedLatencies, peakInFlight } = window;
	// Requests started while the pool was still filling after a step up met a shorter queue than the limit makes.
	const samples = loadedLatencies.length * 2 >= latencies.length ? loadedLatencies : latencies;
	const sorted = [...samples].sort((a, b) => a - b);
	const median = quantile(sorted, 0.5);
	return {
		lucky: quantile(sorted, LUCKY_QUANTILE),
		median,
		rate: limit / median,
		filled: peakInFlight >= limit,
	};
}
