import type { IDataObject } from 'n8n-workflow';

/**
 * The pages a person sees after opening an answer link: small, self-contained, no scripts. Opening a link only
 * shows the question; pressing a button on the page (a POST) answers it.
 */

/** What the answer page shows, fixed when the question is sent, so the page matches the message. */
export interface AnswerPage extends IDataObject {
	responseType: 'approval' | 'freeText';
	title: string;
	question: string;
	/** Approval: the approve button; Free Text: the button that sends the text. */
	submitLabel: string;
	/** Approve and Decline only. */
	declineLabel?: string;
}

function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
	return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}
textarea{width:100%;min-height:8rem;font:inherit;padding:.5rem;box-sizing:border-box}
button{margin:1rem .5rem 0 0;padding:.6rem 1.4rem;font:inherit;background:#128c7e;color:#fff;border:0;border-radius:.4rem}
button.decline{background:#6b6b6b}.error{color:#b00020}</style></head>
<body>${body}</body></html>`;
}

function heading(answerPage: AnswerPage, error: string): { title: string; html: string } {
	const title = answerPage.title || 'Your answer';
	const question = answerPage.question
		? `<p>${escapeHtml(answerPage.question).replace(/\n/g, '<br>')}</p>`
		: '';
	const problem = error ? `<p class="error">${escapeHtml(error)}</p>` : '';
	return { title, html: `<h1>${escapeHtml(title)}</h1>${question}${problem}` };
}

/**
 * The form has no action: it posts back to the very URL it was opened with, signature included, so n8n checks
 * the link's signature again before the answer reaches the node.
 */
export function answerFormPage(answerPage: AnswerPage, error = ''): string {
	const { title, html } = heading(answerPage, error);
	if (answerPage.responseType === 'approval') {
		const decline = answerPage.declineLabel
			? `<button type="submit" name="approved" value="false" class="decline">${escapeHtml(answerPage.declineLabel)}</button>`
			: '';
		return page(
			title,
			`${html}
<form method="post"><button type="submit" name="approved" value="true">${escapeHtml(answerPage.submitLabel || 'Approve')}</button>${decline}</form>`,
		);
	}
	return page(
		title,
		`${html}
<form method="post"><label for="text">Response</label>
<textarea id="text" name="text" required maxlength="4096"></textarea>
<button type="submit">${escapeHtml(answerPage.submitLabel || 'Submit')}</button></form>`,
	);
}

export function answerRecordedPage(): string {
	return page(
		'Got it, thanks',
		'<h1>Got it, thanks</h1><p>Your answer was recorded. This page can be closed now.</p>',
	);
}
