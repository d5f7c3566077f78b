/**
 * n8n's community-package scanner (`@n8n/scan-community-package`), its two lint legs run offline: the source leg
 * on `package.json` and the `nodes/`, `credentials/` sources, and the tarball leg on the packed package's compiled
 * `.js` and its `package.json`. Its third leg, npm provenance, reads the public registry and cannot run here.
 */
import path from 'node:path';

/** The scanner's own file choices for each leg, as `analyzePackageByName` passes them. */
export const TARBALL_FILE_PATTERNS = ['**/*.js', 'package.json'];

export interface ScanResult {
	passed: boolean;
	message?: string;
	details?: string;
}

interface ScannerModule {
	analyzePackage(packageDir: string, filePatterns?: string[]): Promise<ScanResult>;
	SOURCE_FILE_PATTERNS: string[];
}

const SCANNER_ENTRY = '@n8n/scan-community-package/scanner/scanner.mjs';

/** The scanner is ESM only; the import is kept out of reach of the CommonJS transform so it stays a real import. */
const importModule = new Function('specifier', 'return import(specifier)') as (
	specifier: string,
) => Promise<ScannerModule>;

async function loadScanner(): Promise<ScannerModule> {
	return importModule(require.resolve(SCANNER_ENTRY));
}

/** The source leg: what the scanner lints in the attested source checkout of a published package. */
export async function scanSource(packageRoot: string): Promise<ScanResult> {
	const scanner = await loadScanner();
	return scanner.analyzePackage(path.resolve(packageRoot), scanner.SOURCE_FILE_PATTERNS);
}

/** The tarball leg: the unpacked package as npm would download it. */
export async function scanUnpackedTarball(packageDir: string): Promise<ScanResult> {
	const scanner = await loadScanner();
	return scanner.analyzePackage(path.resolve(packageDir), TARBALL_FILE_PATTERNS);
}
