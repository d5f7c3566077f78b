import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { anchorsOf, brokenLinks, linksIn, slugOf } from './markdownLinks';

const ROOT = path.resolve(__dirname, '../..');
const README_MAX_LINES = 300;

function markdownFiles(): string[] {
	const docs = fs
		.readdirSync(path.join(ROOT, 'docs'))
		.filter((name) => name.endsWith('.md'))
		.map((name) => `docs/${name}`);
	return ['README.md', ...docs];
}

/** Where n8n's node panel and credential dialog send a user: README anchors named in the package's code. */
function documentationAnchors(): Array<{ file: string; anchor: string }> {
	const files = [
		...fs.readdirSync(path.join(ROOT, 'credentials')).map((name) => `credentials/${name}`),
		...['Messaging', 'MessagingTrigger'].flatMap((node) =>
			fs
				.readdirSync(path.join(ROOT, 'nodes', node))
				.filter((name) => /\.(ts|json)$/.test(name))
				.map((name) => `nodes/${node}/${name}`),
		),
	];
	return files.flatMap((file) =>
		[...fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(/n8n-nodes-messaging#([\w-]+)/g)]
			.map((match) => ({ file, anchor: match[1] }))
			.filter(({ anchor }) => anchor !== 'readme'),
	);
}

describe('README.md and docs/', () => {
	it('README.md is a short user README', () => {
		const lines = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n');
		expect(lines.length).toBeLessThanOrEqual(README_MAX_LINES);
	});

	it('every relative link and image resolves to a file, and every anchor to a heading', () => {
		const files = markdownFiles();
		expect(files.length).toBeGreaterThan(1);
		expect(brokenLinks(ROOT, files)).toEqual([]);
	});

	it("the README anchors the nodes' and credentials' documentation URLs name are headings", () => {
		const anchors = anchorsOf(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
		const named = documentationAnchors();
		expect(named.length).toBeGreaterThan(0);
		expect(named.filter(({ anchor }) => !anchors.has(anchor))).toEqual([]);
	});
});

describe('the link check', () => {
	let dir: string;

	beforeAll(() => {
		dir = fs.mkdtempSync(path.join(os.tmpdir(), 'links-'));
		fs.mkdirSync(path.join(dir, 'docs', 'screenshots'), { recursive: true });
		fs.writeFileSync(path.join(dir, 'docs', 'screenshots', 'a.png'), '');
		fs.writeFileSync(
			path.join(dir, 'docs', 'guide.md'),
			'# Guide\n\n## Send and Wait → Links (`npm test`)\n',
		);
	});

	afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

	function check(markdown: string) {
		fs.writeFileSync(path.join(dir, 'README.md'), markdown);
		return brokenLinks(dir, ['README.md']).map(({ line, target, reason }) => ({
			line,
			target,
			reason,
		}));
	}

	it('passes links, images and anchors that resolve, and skips web links and code', () => {
		const markdown = [
			'# Title',
			'![shot](docs/screenshots/a.png) [guide](docs/guide.md#send-and-wait--links-npm-test) [top](#title)',
			'[web](https://example.com/nowhere) `[code](missing.md)`',
			'```',
			'[in a fence](missing.md)',
			'```',
		].join('\n');
		expect(check(markdown)).toEqual([]);
	});

	it('fails on a missing file, a missing image, a missing anchor and one outside the repository', () => {
		const markdown = [
			'# Title',
			'[gone](docs/gone.md) ![gone](docs/screenshots/b.png)',
			'[anchor](docs/guide.md#nowhere) [here](#no-such-heading) [up](../outside.md)',
		].join('\n');
		expect(check(markdown)).toEqual([
			{ line: 2, target: 'docs/gone.md', reason: 'no file docs/gone.md' },
			{ line: 2, target: 'docs/screenshots/b.png', reason: 'no file docs/screenshots/b.png' },
			{ line: 3, target: 'docs/guide.md#nowhere', reason: 'no heading #nowhere in docs/guide.md' },
			{ line: 3, target: '#no-such-heading', reason: 'no heading #no-such-heading in README.md' },
			{ line: 3, target: '../outside.md', reason: 'points outside the repository' },
		]);
	});

	it('names anchors as GitHub does, repeats numbered', () => {
		expect(slugOf('SMS → Send')).toBe('sms--send');
		expect(slugOf('Measured (`npm run bench`)')).toBe('measured-npm-run-bench');
		expect([...anchorsOf('## Errors\n### Errors\n')]).toEqual(['errors', 'errors-1']);
		expect(linksIn('<img src="x.png"> [a](b.md "title")').map(({ target }) => target)).toEqual([
			'b.md',
			'x.png',
		]);
	});
});
