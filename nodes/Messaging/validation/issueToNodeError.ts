import { NodeOperationError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';
import type { ZodIssue } from 'zod/v3';

export type FieldGuide = Record<string, { label: string; fix: string }>;

function describeLocation(path: Array<string | number>, guide: FieldGuide): string {
	const [field, first, second] = path;
	const label = `'${guide[String(field)]?.label ?? String(field)}'`;
	if (first === undefined) return label;
	if (typeof first === 'number')
		return `${label} row ${first + 1}${second === undefined ? '' : ` (${String(second)})`}`;
	if (typeof second === 'number') return `${label} ${first} row ${second + 1}`;
	if (second !== undefined) return `${label} ${first} position "${second}"`;
	return `${label} "${first}"`;
}

/** Item numbers are zero-based like `$itemIndex`, so "Item 2" is the item an expression sees as index 2. */
export function issueToNodeError(
	node: INode,
	issues: ZodIssue[],
	itemIndex: number,
	guide: FieldGuide,
): NodeOperationError {
	const [first, ...others] = issues;
	const fixOf = (issue: ZodIssue): string =>
		(issue.code === 'custom' ? (issue.params?.fix as string | undefined) : undefined) ??
		guide[String(issue.path[0])]?.fix ??
		'Correct the value and run the node again.';
	const message = `Item ${itemIndex}: ${describeLocation(first.path, guide)} ${first.message}`;
	const alsoWrong = others.map(
		(issue) => `${describeLocation(issue.path, guide)} ${issue.message}`,
	);
	const description = [
		fixOf(first),
		...(alsoWrong.length ? [`Also to fix in this item: ${alsoWrong.join('; ')}.`] : []),
	].join(' ');
	return new NodeOperationError(node, message, { itemIndex, description });
}
