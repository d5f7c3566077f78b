/**
 * `npm run scan`: n8n's community-package scanner on the packed tarball and on the source, as n8n runs it before it
 * lists a package as verified (its provenance leg aside: that one needs the public registry).
 *
 * `--source DIR` and `--unpacked DIR` (each may repeat) scan only those folders with that leg: the test plants code in
 * copies this way.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { CheckRunner, runCheckScript } from '../../test/e2e/harness';
import { runCommandOrThrow } from '../lib/command';
import { buildAndPack } from '../n8n/package';
import { REPO_ROOT } from '../n8n/paths';
import { scanSource, scanUnpackedTarball, type ScanResult } from './scanner';

function throwUnlessPassed(result: ScanResult): void {
	if (!result.passed) throw new Error(`${result.message ?? 'failed'}${result.details ?? ''}`);
}

async function unpack(tarball: string, into: string): Promise<void> {
	fs.mkdirSync(into, { recursive: true });
	await runCommandOrThrow('tar', ['-xzf', tarball, '-C', into, '--strip-components=1']);
}

function optionValues(name: string): string[] {
	return process.argv.flatMap((arg, at) => (arg === name ? [process.argv[at + 1]] : []));
}

async function scanGivenFolders(runner: CheckRunner, sources: string[], unpacked: string[]) {
	for (const dir of sources)
		await runner.check(`scanner, source leg: ${dir}`, async () =>
			throwUnlessPassed(await scanSource(dir)),
		);
	for (const dir of unpacked)
		await runner.check(`scanner, tarball leg: ${dir}`, async () =>
			throwUnlessPassed(await scanUnpackedTarball(dir)),
		);
}

async function main(): Promise<number> {
	const runner = new CheckRunner();
	const sources = optionValues('--source');
	const unpacked = optionValues('--unpacked');
	if (sources.length || unpacked.length) {
		await scanGivenFolders(runner, sources, unpacked);
		console.log(runner.summary());
		return runner.hasFailures ? 1 : 0;
	}
	const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-nodes-messaging-scan-'));
	try {
		const packed = await buildAndPack(path.join(workDir, 'pack'), { reuseIfUnchanged: false });
		const unpacked = path.join(workDir, 'package');
		await unpack(packed.tarball, unpacked);
		await runner.check(`scanner, tarball leg: ${path.basename(packed.tarball)}`, async () =>
			throwUnlessPassed(await scanUnpackedTarball(unpacked)),
		);
		await runner.check('scanner, source leg: package.json, nodes/, credentials/', async () =>
			throwUnlessPassed(await scanSource(REPO_ROOT)),
		);
	} finally {
		fs.rmSync(workDir, { recursive: true, force: true });
	}
	console.log(runner.summary());
	return runner.hasFailures ? 1 : 0;
}

runCheckScript(main);
