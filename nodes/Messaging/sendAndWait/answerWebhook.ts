import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { answerFormPage, answerRecordedPage, type AnswerPage } from './pages';

/** n8n's own send-and-wait webhooks: GET opens a link, POST sends the page's answer; both resume by node id. */
export const sendAndWaitWebhooks = (['GET', 'POST'] as const).map((httpMethod) => ({
	name: 'default' as const,
	httpMethod,
	responseMode: 'onReceived',
	responseData: '',
	path: '={{ $nodeId }}',
	restartWebhook: true,
	isFullPath: true,
}));

type Page = (status: number, html: string) => void;

function pageWriter(context: IWebhookFunctions): Page {
	const response = context.getResponseObject();
	return (status, html) => {
		response.setHeader('Content-Type', 'text/html; charset=utf-8');
		response.setHeader('Cache-Control', 'no-store');
		response.setHeader(
			'Content-Security-Policy',
			"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
		);
		response.status(status).send(html);
	};
}

/** The data the waiting node is queued with (see waiting.ts): the facts of the sent question and its page. */
function waitingOutput(context: IWebhookFunctions): IDataObject {
	const output = context.evaluateExpression('{{ $json }}', 0);
	return output && typeof output === 'object' ? (output as IDataObject) : {};
}

/** An execution put to wait by an earlier version of the node has no page in its output: built from the node. */
function answerPageOf(context: IWebhookFunctions, output: IDataObject): AnswerPage {
	if (output.answerPage && typeof output.answerPage === 'object')
		return output.answerPage as AnswerPage;
	const read = (name: string, fallback: string) =>
		String(context.getNodeParameter(name, fallback) ?? fallback);
	const freeText = read('responseType', 'approval') === 'freeText';
	const withDecline = read('approvalOptions.values.approvalType', 'single') === 'double';
	return {
		responseType: freeText ? 'freeText' : 'approval',
		title: read('options.responseFormTitle', ''),
		question: read('options.responseFormDescription', ''),
		submitLabel: freeText
			? read('options.responseFormButtonLabel', 'Submit')
			: read('approvalOptions.values.approveLabel', '✓ Approve'),
		...(!freeText && withDecline
			? { declineLabel: read('approvalOptions.values.disapproveLabel', '✗ Decline') }
			: {}),
	};
}

function answerItem(output: IDataObject, data: IDataObject): IWebhookResponseData {
	const json: IDataObject = {
		answered: true,
		data,
		respondedBy: output.to ?? null,
		respondedAt: new Date().toISOString(),
		to: output.to ?? null,
		message_id: output.message_id ?? null,
	};
	return { noWebhookResponse: true, workflowData: [[{ json, pairedItem: { item: 0 } }]] };
}

/** The answer a POST of the page carries, or the problem to show on the page again. */
function postedAnswer(
	body: IDataObject,
	answerPage: AnswerPage,
): IDataObject | { problem: string } {
	if (answerPage.responseType === 'freeText') {
		const text = typeof body.text === 'string' ? body.text.trim() : '';
		return text === '' ? { problem: 'Write an answer before sending it.' } : { text };
	}
	if (body.approved === 'true') return { approved: true };
	if (body.approved === 'false' && answerPage.declineLabel) return { approved: false };
	return { problem: 'Press one of the buttons to answer.' };
}

/**
 * n8n has checked the link's signature before this runs, for a GET and a POST alike. Opening a link (a GET, which
 * link previews, security scanners and people all send) only shows the page; the page's button sends a POST,
 * and only that answers and resumes the execution.
 */
export async function answerWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const writePage = pageWriter(this);
	const output = waitingOutput(this);
	const answerPage = answerPageOf(this, output);
	if (this.getRequestObject().method !== 'POST') {
		writePage(200, answerFormPage(answerPage));
		return { noWebhookResponse: true };
	}
	const answer = postedAnswer(this.getBodyData(), answerPage);
	if ('problem' in answer) {
		writePage(400, answerFormPage(answerPage, String(answer.problem)));
		return { noWebhookResponse: true };
	}
	writePage(200, answerRecordedPage());
	return answerItem(output, answer);
}
