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

function isAcknowledgement(json: IDataObject): boolean {
	return typeof json.message_id === 'string' && !('error' in json);
}

/**
 * After the question went out: the execution waits. Nothing is read or checked again here, so nothing can fail
 * once the message is sent; a limit that passed while the send was retried ends the wait at once.
 * When the wait time ends n8n resumes the node disabled, and a disabled node passes on the data it was queued
 * with: that data becomes the "no answer" item, so a timeout reads `answered: false` instead of the input
 * again. An answer replaces that data with the webhook's item. A failed send (an error item when the node
 * continues on fail) does not wait. `prepare` worked out the wait for the one item, before anything was sent.
 */
export async function putToWait(
	context: IExecuteFunctions,
	results: INodeExecutionData[],
	[wait]: Array<PreparedWait | undefined>,
): Promise<INodeExecutionData[][]> {
	const [sent] = results;
	if (!sent || !wait || !isAcknowledgement(sent.json)) return [results];
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
