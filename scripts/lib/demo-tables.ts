/** Plain-text tables for the terminal: readable in a CI log too, no colours. */
export function renderTable(headers: string[], rows: string[][]): string {
	const widths = headers.map((header, column) =>
		Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
	);
	const line = (cells: string[]) =>
		cells
			.map((cell, column) => (cell ?? '').padEnd(widths[column]))
			.join('  ')
			.trimEnd();
	return [line(headers), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join(
		'\n',
	);
}

export function truncate(text: string, max: number): string {
	return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
