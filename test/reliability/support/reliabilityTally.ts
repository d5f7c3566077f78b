/** What a matrix counts across its cases; the last three must stay zero. */
export interface ReliabilityTally {
	cases: number;
	messagesLost: number;
	messagesDuplicated: number;
	secretsLeaked: number;
}

export function createTally(): ReliabilityTally {
	return { cases: 0, messagesLost: 0, messagesDuplicated: 0, secretsLeaked: 0 };
}

export function summaryLine(matrix: string, tally: ReliabilityTally): string {
	return `${matrix}: ${tally.cases} cases, ${tally.messagesLost} messages lost, ${tally.messagesDuplicated} duplicated, ${tally.secretsLeaked} secrets leaked`;
}

/**
 * Prints the matrix's one-line summary once every case has run, and fails the file if anything
 * was lost, duplicated or leaked, even when each case on its own stayed silent about it.
 */
export function reportTallyAfterAll(matrix: string, tally: ReliabilityTally): void {
	afterAll(() => {
		process.stdout.write(`\n${summaryLine(matrix, tally)}\n`);
		expect({
			messagesLost: tally.messagesLost,
			messagesDuplicated: tally.messagesDuplicated,
			secretsLeaked: tally.secretsLeaked,
		}).toEqual({
			messagesLost: 0,
			messagesDuplicated: 0,
			secretsLeaked: 0,
		});
	});
}

/** Where the secret shows, whole or as a recognisable part of it, with a little context to find it by. */
export function secretSightings(text: string, secret: string, fragmentLength = 12): string[] {
	const sightings: string[] = [];
	for (let start = 0; start + fragmentLength <= secret.length; start++) {
		const fragment = secret.slice(start, start + fragmentLength);
		for (let at = text.indexOf(fragment); at !== -1; at = text.indexOf(fragment, at + 1)) {
			sightings.push(text.slice(Math.max(0, at - 60), at + fragmentLength + 20));
		}
		if (sightings.length > 0) return sightings;
	}
	return sightings;
}

export function containsSecret(text: string, secret: string, fragmentLength = 12): boolean {
	return secretSightings(text, secret, fragmentLength).length > 0;
}
