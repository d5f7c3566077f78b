import { WAIT_INDEFINITELY } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { normalisePhoneNumber } from '../validation/phone';
import { waitTimeLimit } from '../validation/waitTime';

/** What the execution continues with when nobody answered in time; also what the answer webhook reads back. */
export interface WaitingFacts extends IDataObject {
	answered: false;
	data: IDataObject;
	respondedBy: null;
	respondedAt: null;
	to: string;
	message_id: string;
	waitTill: string | null;
}

/** The number as it was sent: the same clean-up and country code completion as the send. */
function recipientOf(context: IExecuteFunctions): string {
	const written = String(context.getNodeParameter('to', 0, ''));
	const countryCode = String(context.getNodeParameter('options.defaultCountryCode', 0, '') ?? '');
	const normalised = normalisePhoneNumber(written, countryCode);
	return normalised.ok ? normalised.phone : written;
}

function isAcknowledgement(json: IDataObject): boolean {
	return typeof json.message_id === 'string' && !('error' in json);
}

/**
 * After the question went out: the execution waits. When the wait time ends n8n resumes the node disabled, and a
 * disabled node passes on the data it was queued with: that data becomes the "no answer" item, so a timeout
 * reads `answered: false` instead of the input again. An answer replaces that data with the webhook's item.
 * A failed send (an error item when the node continues on fail) does not wait.
 */
export async function putToWait(
	context: IExecuteFunctions,
	results: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const [sent] = results;
	if (!sent || !isAcknowledgement(sent.json)) return [results];
	const waitTill = waitTimeLimit(Date.now()).parse(
		context.getNodeParameter('options.limitWaitTime', 0, {}),
	);
	const facts: WaitingFacts = {
		answered: false,
		data: {},
		respondedBy: null,
		respondedAt: null,
		to: recipientOf(context),
		message_id: String(sent.json.message_id),
		waitTill: waitTill.getTime() === WAIT_INDEFINITELY.getTime() ? null : waitTill.toISOString(),
	};
	const waitingItem: INodeExecutionData = { json: facts, pairedItem: { item: 0 } };
	context.getExecuteData().data = { main: [[waitingItem]] };
	await context.putExecutionToWait(waitTill);
	return [[{ json: { ...facts }, pairedItem: { item: 0 } }]];
}
