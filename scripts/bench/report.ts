export interface Measure {
	label: string;
	value: string;
}

export interface TargetCheck {
	target: string;
	measured: string;
	holds: boolean;
}

export interface ScenarioReport {
	title: string;
	/** How the scenario was set up, in one line: what a reader needs to reproduce or question the figures. */
	setup: string;
	measures: Measure[];
	/** Cases × measures, when a scenario compares many cases on the same measures. */
	tables?: Array<{ caption: string; header: string[]; rows: string[][] }>;
	targets: TargetCheck[];
}

export interface MachineFacts {
	cores: number;
	cpuModel: string;
	nodeVersion: string;
	startedAt: string;
	loadAverageAtStart: string;
	loadAverageAtEnd: string;
	repetitions: number;
	totalSeconds: number;
}

function markdownTable(header: string[], rows: string[][]): string {
	const widths = header.map((cell, column) =>
		Math.max(cell.length, ...rows.map((row) => row[column].length)),
	);
	const line = (cells: string[]) =>
		`| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
	return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join(
		'\n',
	);
}

export function formatNumber(value: number, decimals = 0): string {
	return value.toLocaleString('en-US', {
		minimumFractionDigits: decimals,
		maximumFractionDigits: decimals,
	});
}

/** One markdown document, printed as is and written to bench/results.md, so the terminal and the file never disagree. */
export function renderReport(machine: MachineFacts, scenarios: ScenarioReport[]): string {
	const measureRows = scenarios.flatMap((scenario) =>
		scenario.measures.map((measure) => [scenario.title, measure.label, measure.value]),
	);
	const targetRows = scenarios.flatMap((scenario) =>
		scenario.targets.map((check) => [check.target, check.measured, check.holds ? 'PASS' : 'FAIL']),
	);
	return [
		'# Benchmark results (`npm run bench`)',
		'',
		`${machine.startedAt} · ${machine.cores} cores (${machine.cpuModel}) · Node ${machine.nodeVersion} · ` +
			`load average ${machine.loadAverageAtStart} at start, ${machine.loadAverageAtEnd} at end · ` +
			`medians of ${machine.repetitions} repetitions, (min–max) where they differ · ${formatNumber(machine.totalSeconds)} s in all`,
		'',
		"The sandbox runs in its own child process; each node run is a real workflow through n8n-core's WorkflowExecute.",
		'',
		...scenarios.map((scenario) => `- **${scenario.title}**: ${scenario.setup}`),
		'',
		markdownTable(['Scenario', 'Measure', 'Value'], measureRows),
		'',
		...scenarios.flatMap((scenario) =>
			(scenario.tables ?? []).flatMap((table) => [
				`**${scenario.title}: ${table.caption}**`,
				'',
				markdownTable(table.header, table.rows),
				'',
			]),
		),
		markdownTable(['Target', 'Measured', 'Result'], targetRows),
		'',
	].join('\n');
}
