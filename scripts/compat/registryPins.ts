/**
 * Which of an n8n release's own packages the npm registry here lacks, in seconds instead of an install's minutes:
 * `npx tsx scripts/compat/registryPins.ts 2.38.7 2.35.7`. It follows the exact versions n8n's packages pin on each
 * other (`n8n` → `n8n-core`, `@n8n/*`, …), which is where releases failed to install here (docs/compat.md), and
 * prints dependencies given as URLs (the `xlsx` tarball that stops 2.0 to 2.31). Ranges and third-party packages are
 * left to npm: a clean report is a reason to try the install, not a promise that it works.
 */
import { execFileSync } from 'node:child_process';

interface Report {
	version: string;
	checked: number;
	missing: string[];
	urls: string[];
}

const versionsOf = new Map<string, string[]>();

function npmView(spec: string, field: string): unknown {
	try {
		const text = execFileSync('npm', ['view', spec, field, '--json'], {
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
		});
		return text.trim() ? JSON.parse(text) : undefined;
	} catch {
		return undefined;
	}
}

function published(name: string): string[] {
	if (!versionsOf.has(name)) {
		const found = npmView(name, 'versions');
		versionsOf.set(name, Array.isArray(found) ? found.map(String) : found ? [String(found)] : []);
	}
	return versionsOf.get(name)!;
}

const isN8nOwn = (name: string) =>
	name === 'n8n' || name.startsWith('n8n-') || name.startsWith('@n8n/');

function checkRelease(version: string): Report {
	const report: Report = { version, checked: 0, missing: [], urls: [] };
	const queue: Array<[string, string]> = [['n8n', version]];
	const seen = new Set<string>();
	while (queue.length > 0) {
		const [name, pinned] = queue.shift()!;
		const spec = `${name}@${pinned}`;
		if (seen.has(spec)) continue;
		seen.add(spec);
		if (!published(name).includes(pinned)) {
			report.missing.push(spec);
			continue;
		}
		const dependencies = (npmView(spec, 'dependencies') ?? {}) as Record<string, string>;
		for (const [dependency, range] of Object.entries(dependencies)) {
			if (/^(https?:|git)/.test(range)) report.urls.push(`${spec} → ${dependency}: ${range}`);
			else if (isN8nOwn(dependency) && /^\d+\.\d+\.\d+$/.test(range))
				queue.push([dependency, range]);
		}
	}
	report.checked = seen.size;
	return report;
}

for (const version of process.argv.slice(2)) {
	const { checked, missing, urls } = checkRelease(version);
	const verdict = missing.length + urls.length === 0 ? 'every pin found' : 'will not install';
	console.log(`n8n ${version}: ${verdict} (${checked} of n8n's own packages checked)`);
	for (const line of [...missing.map((spec) => `missing ${spec}`), ...urls])
		console.log(`  ${line}`);
}
