/** Counts the requests on the wire and lets a waiter wake when the next one settles. */
export class InFlightRequests {
	count = 0;

	private settled: { promise: Promise<void>; resolve: () => void } | undefined;

	started(): void {
		this.count++;
	}

	finished(): void {
		this.count--;
		this.settled?.resolve();
		this.settled = undefined;
	}

	async nextSettled(): Promise<void> {
		if (!this.settled) {
			let resolve = () => {};
			const promise = new Promise<void>((done) => (resolve = done));
			this.settled = { promise, resolve };
		}
		await this.settled.promise;
	}
}
