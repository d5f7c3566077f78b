import fs from 'node:fs';
import path from 'node:path';

/** A link or image in a markdown file that does not lead where it says. */
export interface BrokenLink {
	file: string;
	line: number;
	target: string;
	reason: string;
}

interface Link {
	line: number;
	target: string;
}

const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/** The text outside fenced code blocks and inline code spans, line by line (code may hold brackets). */
function proseLines(markdown: string): string[] {
	let fence: string | undefined;
	return markdown.split('\n').map((line) => {
		const opening = /^\s*(```|~~~)/.exec(line);
		if (opening) {
			if (fence === undefined) fence = opening[1];
			else if (opening[1] === fence) fence = undefined;
			return '';
		}
		return fence === undefined ? line.replace(/`+[^`]*`+/g, '') : '';
	});
}

/** Every `[text](target)`, `![alt](target)` and HTML `src`/`href` outside code, with its line. */
export function linksIn(markdown: string): Link[] {
	const links: Link[] = [];
	proseLines(markdown).forEach((line, index) => {
		const patterns = [/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g, /\b(?:src|href)="([^"]+)"/g];
		for (const pattern of patterns)
			for (const match of line.matchAll(pattern)) links.push({ line: index + 1, target: match[1] });
	});
	return links;
}

/** GitHub's heading anchor: lower case, punctuation dropped, each space a hyphen. */
export function slugOf(heading: string): string {
	const text = heading
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/<[^>]+>/g, '')
		.replace(/[`*]/g, '');
	return text
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, '')
		.replace(/ /g, '-');
}

/** The anchors a markdown file's headings get on GitHub, repeats numbered as GitHub numbers them. */
export function anchorsOf(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	for (const line of proseLinesKeepingCode(markdown)) {
		const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
		if (!heading) continue;
		const slug = slugOf(heading[1]);
		const count = seen.get(slug) ?? 0;
		seen.set(slug, count + 1);
		anchors.add(count === 0 ? slug : `${slug}-${count}`);
	}
	return anchors;
}

/** Lines outside fenced code blocks, inline code kept (a heading's code is part of its anchor). */
function proseLinesKeepingCode(markdown: string): string[] {
	let inFence = false;
	return markdown.split('\n').filter((line) => {
		if (/^\s*(```|~~~)/.test(line)) {
			inFence = !inFence;
			return false;
		}
		return !inFence;
	});
}

function decode(target: string): string {
	try {
		return decodeURIComponent(target);
	} catch {
		return target;
	}
}

/** Why a relative link from `file` does not resolve, or undefined when it does. */
export function problemWith(root: string, file: string, target: string): string | undefined {
	if (EXTERNAL.test(target)) return undefined;
	const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
	const resolved = pathPart
		? path.resolve(path.dirname(path.join(root, file)), decode(pathPart))
		: path.join(root, file);
	if (!resolved.startsWith(root + path.sep) && resolved !== root)
		return 'points outside the repository';
	if (!fs.existsSync(resolved)) return `no file ${path.relative(root, resolved)}`;
	if (anchor === undefined || anchor === '') return undefined;
	if (!resolved.endsWith('.md'))
		return `an anchor into ${path.relative(root, resolved)}, not markdown`;
	const anchors = anchorsOf(fs.readFileSync(resolved, 'utf8'));
	return anchors.has(decode(anchor).toLowerCase())
		? undefined
		: `no heading #${anchor} in ${path.relative(root, resolved)}`;
}

/** Every link and image of the given markdown files (paths relative to `root`) that does not resolve. */
export function brokenLinks(root: string, files: string[]): BrokenLink[] {
	return files.flatMap((file) =>
		linksIn(fs.readFileSync(path.join(root, file), 'utf8')).flatMap(({ line, target }) => {
			const reason = problemWith(root, file, target);
			return reason ? [{ file, line, target, reason }] : [];
		}),
	);
}
