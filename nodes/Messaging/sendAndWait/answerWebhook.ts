import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { answerFormPage, answerRecordedPage } from './pages';

/** n8n's own send-and-wait webhooks: GET opens a link, POST sends the answer form; both resume by node id. */
export const sendAndWaitWebhooks = (['GET', 'POST'] as const).map((httpMethod) => ({
	name: 'default' as const,
	httpMethod,
	responseMode: 'onReceived',
	responseData: '',
	path: '={{ $nodeId }}',
	restartWebhook: true,
	isFullPath: true,
}));

/**
 * Link previews (WhatsApp's own, chat apps, crawlers) open a link without anyone tapping it. An approval link
 * that a preview opened would approve, so those requests get an empty page and resume nothing.
 */
const LINK_PREVIEW =
	/bot|crawl|spider|preview|whatsapp|facebookexternalhit|meta-external|slack|telegram|skype|teams|discord/i;

export function isLinkPreview(userAgent: string | undefined): boolean {
	return !userAgent || LINK_PREVIEW.test(userAgent);
}

type Page = (status: number, html: string) => void;

function pageWriter(context: IWebhookFunctions): Page {
	const response = context.getResponseObject();
	return (status, html) => {
		response.setHeader('Content-Type', 'text/html; charset=utf-8');
		response.setHeader(
			'Content-Security-Policy',
			"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
		);
		response.status(status).send(html);
	};
}

/** The facts of the sent question, from the item the waiting execution holds (see waiting.ts). */
function waitingFacts(context: IWebhookFunctions): IDataObject {
	const facts = context.evaluateExpression('{{ $json }}', 0);
	return facts && typeof facts === 'object' ? (facts as IDataObject) : {};
}

function answerItem(context: IWebhookFunctions, data: IDataObject): IWebhookResponseData {
	const facts = waitingFacts(context);
	const json: IDataObject = {
		answered: true,
		data,
		respondedBy: facts.to ?? null,
		respondedAt: new Date().toISOString(),
		to: facts.to ?? null,
		message_id: facts.message_id ?? null,
	};
	return { noWebhookResponse: true, workflowData: [[{ json, pairedItem: { item: 0 } }]] };
}

function formTexts(context: IWebhookFunctions) {
	const option = (name: string) => String(context.getNodeParameter(`options.${name}`, '') ?? '');
	return {
		title: option('responseFormTitle'),
		description:
			option('responseFormDescription') || String(context.getNodeParameter('message', '') ?? ''),
		buttonLabel: option('responseFormButtonLabel'),
	};
}

function freeTextAnswer(context: IWebhookFunctions, writePage: Page): IWebhookResponseData {
	if (context.getRequestObject().method !== 'POST') {
		writePage(200, answerFormPage(formTexts(context)));
		return { noWebhookResponse: true };
	}
	const body = context.getBodyData();
	const text = typeof body.text === 'string' ? body.text.trim() : '';
	if (text === '') {
		writePage(400, answerFormPage(formTexts(context), 'Write an answer before sending it.'));
		return { noWebhookResponse: true };
	}
	writePage(200, answerRecordedPage());
	return answerItem(context, { text });
}

/** n8n has checked the link's signature before this runs; an answer here resumes the execution. */
export async function answerWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const writePage = pageWriter(this);
	const request = this.getRequestObject();
	const responseType = this.getNodeParameter('responseType', 'approval');
	if (request.method === 'GET' && isLinkPreview(request.headers['user-agent'])) {
		writePage(200, '');
		return { noWebhookResponse: true };
	}
	if (responseType === 'freeText') return freeTextAnswer(this, writePage);
	const approved = (this.getQueryData() as IDataObject).approved === 'true';
	writePage(200, answerRecordedPage());
	return answerItem(this, { approved });
}
