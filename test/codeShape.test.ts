import fs from 'node:fs';
import path from 'node:path';

import ts from 'typescript';

const ROOT = path.resolve(__dirname, '..');
/** A smell alarm, not a knife: a file holds one idea, split where its meaning splits (docs/architecture.md). */
const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 60;

function sourceFilesUnder(folder: string): string[] {
	return fs
		.readdirSync(path.join(ROOT, folder), { recursive: true, encoding: 'utf8' })
		.filter((file) => file.endsWith('.ts'))
		.map((file) => path.join(folder, file));
}

const productFiles = [...sourceFilesUnder('nodes'), ...sourceFilesUnder('credentials')];

function lineCount(text: string): number {
	return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function longFunctions(file: string): string[] {
	const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
	const found: string[] = [];
	const visit = (node: ts.Node) => {
		if (ts.isFunctionLike(node) && 'body' in node && node.body) {
			const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
			const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
			const name = node.name ? node.name.getText(source) : '(anonymous)';
			if (last - first + 1 > MAX_FUNCTION_LINES)
				found.push(`${file}:${first + 1} ${name} has ${last - first + 1} lines`);
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found;
}

/**
 * The Messaging node's folders, from the node file down: a file may import from its own folder or from a folder
 * below it, never from one above (docs/architecture.md: Layout). `methods/` (the credential test) sits beside
 * `actions/`; `vocabulary/` holds the terms transport and throughput both speak; `nodes/shared` and the credentials
 * sit below every layer.
 */
const MESSAGING_LAYERS: Record<string, number> = {
	'.': 0,
	actions: 1,
	methods: 1,
	sendAndWait: 2,
	validation: 3,
	transport: 4,
	throughput: 5,
	vocabulary: 6,
};
const MESSAGING_DIR = path.join('nodes', 'Messaging');
const SHARED_DIR = path.join('nodes', 'shared');
const CREDENTIALS_DIR = 'credentials';

/** The layer a product file belongs to: its top folder under nodes/Messaging, or the node folder itself. */
function layerOf(file: string): { folder: string; rank: number } | undefined {
	if (file.startsWith(SHARED_DIR + path.sep)) return { folder: SHARED_DIR, rank: 99 };
	if (file.startsWith(CREDENTIALS_DIR + path.sep)) return { folder: CREDENTIALS_DIR, rank: 99 };
	if (!file.startsWith(MESSAGING_DIR + path.sep)) return undefined;
	const parts = path.relative(MESSAGING_DIR, file).split(path.sep);
	const folder = parts.length === 1 ? '.' : parts[0];
	const rank = MESSAGING_LAYERS[folder];
	return rank === undefined ? { folder, rank: -1 } : { folder, rank };
}

function relativeImportsOf(text: string): string[] {
	const source = ts.createSourceFile('file.ts', text, ts.ScriptTarget.Latest, true);
	const found: string[] = [];
	const visit = (node: ts.Node) => {
		if (
			(ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
			node.moduleSpecifier &&
			ts.isStringLiteral(node.moduleSpecifier) &&
			node.moduleSpecifier.text.startsWith('.')
		)
			found.push(node.moduleSpecifier.text);
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found;
}

/** Imports that run back up the layers, or sideways into another folder of the same layer. */
export function upwardImports(file: string, text: string): string[] {
	const from = layerOf(file);
	if (!from) return [];
	return relativeImportsOf(text).flatMap((specifier) => {
		const target = path.normalize(path.join(path.dirname(file), specifier));
		const to = layerOf(target);
		if (!to) return [`${file} imports ${specifier}, outside the node's layers`];
		if (to.folder === from.folder) return [];
		if (from.rank < 0 || to.rank < 0)
			return [`${file} imports ${specifier}: add its folder to MESSAGING_LAYERS`];
		return to.rank > from.rank ? [] : [`${file} imports ${specifier}, a layer above or beside it`];
	});
}

function declaresTypesOnly(file: string): boolean {
	const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
	return source.statements.every(
		(statement) =>
			ts.isInterfaceDeclaration(statement) ||
			ts.isTypeAliasDeclaration(statement) ||
			(ts.isImportDeclaration(statement) && Boolean(statement.importClause?.isTypeOnly)),
	);
}

/** docs/architecture.md's "Tests that cover a file from elsewhere": product file → the test files named in its row. */
function coverageTable(): Map<string, string[]> {
	const doc = fs.readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
	const section = doc.split('## Tests that cover a file from elsewhere')[1] ?? '';
	const rows = new Map<string, string[]>();
	for (const line of section.split('\n')) {
		const cells = line.split('|').map((cell) => cell.trim());
		const file = /^`([^`]+\.ts)`$/.exec(cells[1] ?? '')?.[1];
		if (!file) continue;
		const tests = [...(cells[2] ?? '').matchAll(/`(test\/[^`]+\.ts)`/g)].map((match) => match[1]);
		rows.set(file, cells[2] === 'types only' ? [] : tests);
	}
	return rows;
}

describe('the shape of the product code', () => {
	it('finds the product files', () => {
		expect(productFiles.length).toBeGreaterThan(20);
		expect(productFiles).toContain(path.join('nodes', 'Messaging', 'Messaging.node.ts'));
	});

	it(`keeps every product file within ${MAX_FILE_LINES} lines`, () => {
		const tooLong = productFiles
			.map((file) => ({ file, lines: lineCount(fs.readFileSync(path.join(ROOT, file), 'utf8')) }))
			.filter(({ lines }) => lines > MAX_FILE_LINES);
		expect(tooLong).toEqual([]);
	});

	it(`keeps every function within ${MAX_FUNCTION_LINES} lines`, () => {
		expect(productFiles.flatMap(longFunctions)).toEqual([]);
	});

	it('gives every operation, the router and the transport a test at the mirrored path', () => {
		const mirrored = productFiles.filter(
			(file) =>
				file.endsWith('.operation.ts') ||
				file.endsWith('router.ts') ||
				file.endsWith('sendMessagingRequest.ts'),
		);
		expect(mirrored.length).toBeGreaterThanOrEqual(4);
		const missing = mirrored
			.map((file) => path.join('test', file.replace(/\.ts$/, '.test.ts')))
			.filter((testFile) => !fs.existsSync(path.join(ROOT, testFile)));
		expect(missing).toEqual([]);
	});

	it('imports only down the layers: node file → actions → sendAndWait → validation → transport → throughput → vocabulary', () => {
		const found = productFiles.flatMap((file) =>
			upwardImports(file, fs.readFileSync(path.join(ROOT, file), 'utf8')),
		);
		expect(found).toEqual([]);
	});

	it('catches an upward or sideways import', () => {
		const throughput = path.join(MESSAGING_DIR, 'throughput', 'rateLimiter.ts');
		const validation = path.join(MESSAGING_DIR, 'validation', 'waitTime.ts');
		const methods = path.join(MESSAGING_DIR, 'methods', 'test.ts');
		expect(
			upwardImports(throughput, "import type { X } from '../transport/rateLimitHeaders';"),
		).toEqual([`${throughput} imports ../transport/rateLimitHeaders, a layer above or beside it`]);
		expect(
			upwardImports(
				path.join(MESSAGING_DIR, 'vocabulary', 'x.ts'),
				"import { c } from '../throughput/clock';",
			),
		).toHaveLength(1);
		expect(upwardImports(validation, "export { y } from '../sendAndWait/links';")).toHaveLength(1);
		expect(upwardImports(methods, "import { z } from '../actions/router';")).toHaveLength(1);
		expect(upwardImports(validation, "import { p } from './phone';")).toEqual([]);
		expect(upwardImports(validation, "import { t } from '../throughput/clock';")).toEqual([]);
		expect(
			upwardImports(
				path.join(SHARED_DIR, 'x.ts'),
				"import { n } from '../Messaging/Messaging.node';",
			),
		).toHaveLength(1);
	});

	it('enters failure handling (transport/failures/) only through its index', () => {
		const failuresDir = path.join(MESSAGING_DIR, 'transport', 'failures');
		const sideDoors = productFiles
			.filter((file) => !file.startsWith(failuresDir + path.sep))
			.flatMap((file) =>
				relativeImportsOf(fs.readFileSync(path.join(ROOT, file), 'utf8'))
					.map((specifier) => path.normalize(path.join(path.dirname(file), specifier)))
					.filter((target) => target.startsWith(failuresDir + path.sep))
					.map((target) => `${file} imports ${target}`),
			);
		expect(productFiles).toContain(path.join(failuresDir, 'index.ts'));
		expect(sideDoors).toEqual([]);
	});

	it('imports zod through its v3 API, which zod 3.25 and zod 4 both keep', () => {
		const bareZod = productFiles.filter((file) =>
			/from 'zod'|require\('zod'\)/.test(fs.readFileSync(path.join(ROOT, file), 'utf8')),
		);
		expect(bareZod).toEqual([]);
	});

	it('gives every product file a mirrored test, or names the tests that cover it in docs/architecture.md', () => {
		const covered = coverageTable();
		const problems = productFiles.flatMap((file) => {
			const mirrored = path.join('test', file.replace(/\.ts$/, '.test.ts'));
			if (fs.existsSync(path.join(ROOT, mirrored))) return [];
			const tests = covered.get(file.split(path.sep).join('/'));
			if (!tests) return [`${file}: no ${mirrored}, and no row in docs/architecture.md`];
			if (tests.length === 0 && !declaresTypesOnly(file)) return [`${file} is not types only`];
			return tests
				.filter((test) => !fs.existsSync(path.join(ROOT, test)))
				.map((test) => `${file}: the named ${test} does not exist`);
		});
		expect(problems).toEqual([]);
	});

	it('refers to the README, not to spec paragraphs or issue numbers, in comments', () => {
		const stale = productFiles.filter((file) =>
			/§|\bspec\b|\bissue #?\d+/i.test(fs.readFileSync(path.join(ROOT, file), 'utf8')),
		);
		expect(stale).toEqual([]);
	});
});
