import { WAIT_INDEFINITELY } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { AnswerPage } from './pages';

/**
 * What the execution continues with when nobody answered in time; also what the answer webhook reads back (n8n
 * gives a webhook the data the node is queued with as `$json`), the page its links open included.
 */
export interface WaitingFacts extends IDataObject {
	answered: false;
	data: IDataObject;
	respondedBy: null;
	respondedAt: null;
	to: string;
	message_id: string;
	waitTill: string | null;
	answerPage: AnswerPage;
}

/** Everything the wait needs, worked out (and checked) with the item before anything was sent. */
export interface PreparedWait {
	/** The number as it was sent. */
	to: string;
	waitTill: Date;
	answerPage: AnswerPage;
}

/**
 * The one question of a node run, from `prepare` to `putToWait`. Keyed by the run's own context, so
 * concurrent executions never see each other's, and dropped with the run.
 */
const preparedWaits = new WeakMap<IExecuteFunctions, PreparedWait>();

export function rememberPreparedWait(context: IExecuteFunctions, wait: PreparedWait): void {
	preparedWaits.set(context, wait);
}

function isAcknowledgement(json: IDataObject): boolean {
	return typeof json.message_id === 'string' && !('error' in json);
}

/**
 * After the question went out: the execution waits. Nothing is read or checked again here, so nothing can fail
 * once the message is sent; a limit that passed while the send was retried ends the wait at once.
 * When the wait time ends n8n resumes the node disabled, and a disabled node passes on the data it was queued
 * with: that data becomes the "no answer" item, so a timeout reads `answered: false` instead of the input
 * again. An answer replaces that data with the webhook's item. A failed send (an error item when the node
 * continues on fail) does not wait.
 */
export async function putToWait(
	context: IExecuteFunctions,
	results: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const [sent] = results;
	const wait = preparedWaits.get(context);
	if (!sent || !wait || !isAcknowledgement(sent.json)) return [results];
	preparedWaits.delete(context);
	const { waitTill } = wait;
	const facts: WaitingFacts = {
		answered: false,
		data: {},
		respondedBy: null,
		respondedAt: null,
		to: wait.to,
		message_id: String(sent.json.message_id),
		waitTill: waitTill.getTime() === WAIT_INDEFINITELY.getTime() ? null : waitTill.toISOString(),
		answerPage: wait.answerPage,
	};
	const waitingItem: INodeExecutionData = { json: facts, pairedItem: { item: 0 } };
	context.getExecuteData().data = { main: [[waitingItem]] };
	await context.putExecutionToWait(waitTill);
	return [[{ json: structuredClone(facts), pairedItem: { item: 0 } }]];
}
