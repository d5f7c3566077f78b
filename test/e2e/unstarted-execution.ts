import { randomBytes } from 'node:crypto';
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';

import { stringifyFlatted } from '../../scripts/n8n/executions';

type Row = Record<string, SQLInputValue>;

/**
 * What n8n 2.40.7 stores when a webhook hands items over (webhook-helpers' prepareExecutionData, then
 * createRunExecutionData): the trigger node on the stack with its items, nothing run yet.
 */
function handedOverData(triggerNode: unknown, items: Array<Record<string, unknown>>) {
	return {
		version: 1,
		startData: {},
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			nodeExecutionStack: [
				{ node: triggerNode, data: { main: [items.map((json) => ({ json }))] }, source: null },
			],
			metadata: {},
			waitingExecution: {},
			waitingExecutionSource: {},
		},
		resumeToken: randomBytes(32).toString('hex'),
	};
}

/** SQLite's datetime(3) text, as n8n writes it: UTC, `YYYY-MM-DD HH:MM:SS.mmm`. */
function sqliteNow(): string {
	return new Date().toISOString().replace('T', ' ').slice(0, 23);
}

/** Inserts `row` with the columns it has, so a column another n8n version lacks or adds is simply carried. */
function insert(db: DatabaseSync, table: string, row: Row): number {
	const columns = Object.keys(row);
	const names = columns.map((column) => `"${column}"`).join(', ');
	const statement = db.prepare(
		`INSERT INTO "${table}" (${names}) VALUES (${columns.map(() => '?').join(', ')})`,
	);
	return Number(statement.run(...columns.map((column) => row[column])).lastInsertRowid);
}

/** The execution row n8n writes at hand-over (ActiveExecutions.add): `new`, unfinished, never started. */
function unstartedRow(template: Row): Row {
	const changes: Row = {
		finished: 0,
		mode: 'webhook',
		status: 'new',
		retryOf: null,
		retrySuccessId: null,
		startedAt: null,
		stoppedAt: null,
		waitTill: null,
		deletedAt: null,
		createdAt: sqliteNow(),
		tracingContext: null,
		deduplicationKey: null,
		// 0 is n8n's "not measured": it measures when it reads.
		jsonSizeBytes: 0,
		binaryDataSizeBytes: 0,
	};
	const row: Row = { ...template };
	delete row.id;
	for (const [column, value] of Object.entries(changes)) if (column in row) row[column] = value;
	return row;
}

/**
 * Into a stopped n8n's SQLite database, what a hand-over that n8n stored but never started leaves: an execution of
 * the workflow, status `new`, carrying `items` as the trigger's output. Its row and data are copied from the
 * workflow's last successful execution (so the columns are whatever this n8n's schema has), the data replaced.
 * Returns the new execution's id.
 */
export async function insertUnstartedExecution(
	databaseFile: string,
	workflowId: string,
	triggerNodeName: string,
	items: Array<Record<string, unknown>>,
): Promise<string> {
	// Loaded here, not at import: the e2e scripts must still load on a Node without node:sqlite.
	const { DatabaseSync } = await import('node:sqlite');
	const db = new DatabaseSync(databaseFile);
	try {
		const template = db
			.prepare(
				`SELECT * FROM execution_entity WHERE "workflowId" = ? AND status = 'success' ORDER BY id DESC LIMIT 1`,
			)
			.get(workflowId) as Row | undefined;
		if (!template) throw new Error(`no successful execution of workflow ${workflowId} to copy`);
		if ((template.storedAt ?? 'db') !== 'db')
			throw new Error(
				`execution ${template.id} keeps its data in ${template.storedAt}, not the database`,
			);
		const stored = db
			.prepare('SELECT * FROM execution_data WHERE "executionId" = ?')
			.get(template.id) as Row;
		const workflow = JSON.parse(String(stored.workflowData)) as {
			nodes: Array<{ name: string }>;
		};
		const triggerNode = workflow.nodes.find((node) => node.name === triggerNodeName);
		if (!triggerNode) throw new Error(`workflow ${workflowId} has no node ${triggerNodeName}`);
		db.exec('BEGIN');
		const executionId = insert(db, 'execution_entity', unstartedRow(template));
		const data = stringifyFlatted(handedOverData(triggerNode, items));
		insert(db, 'execution_data', { ...stored, executionId, data });
		db.exec('COMMIT');
		return String(executionId);
	} finally {
		if (db.isTransaction) db.exec('ROLLBACK');
		db.close();
	}
}
