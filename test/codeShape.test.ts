import fs from 'node:fs';
import path from 'node:path';

import ts from 'typescript';

const ROOT = path.resolve(__dirname, '..');
const MAX_FILE_LINES = 200;
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

	it('refers to the README, not to spec paragraphs or issue numbers, in comments', () => {
		const stale = productFiles.filter((file) =>
			/§|\bspec\b|\bissue #?\d+/i.test(fs.readFileSync(path.join(ROOT, file), 'utf8')),
		);
		expect(stale).toEqual([]);
	});
});
