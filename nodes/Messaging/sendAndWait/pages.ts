/** The pages a person sees after opening an answer link: small, self-contained, no scripts. */

function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
	return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}
textarea{width:100%;min-height:8rem;font:inherit;padding:.5rem;box-sizing:border-box}
button{margin-top:1rem;padding:.6rem 1.4rem;font:inherit;background:#128c7e;color:#fff;border:0;border-radius:.4rem}
.error{color:#b00020}</style></head>
<body>${body}</body></html>`;
}

export interface FormTexts {
	title: string;
	description: string;
	buttonLabel: string;
}

/** The form posts back to the very URL it was opened with, so n8n checks the same signature again. */
export function answerFormPage(texts: FormTexts, error = ''): string {
	const title = texts.title || 'Your answer';
	const description = texts.description
		? `<p>${escapeHtml(texts.description).replace(/\n/g, '<br>')}</p>`
		: '';
	const problem = error ? `<p class="error">${escapeHtml(error)}</p>` : '';
	return page(
		title,
		`<h1>${escapeHtml(title)}</h1>${description}${problem}
<form method="post"><label for="text">Response</label>
<textarea id="text" name="text" required maxlength="4096"></textarea>
<button type="submit">${escapeHtml(texts.buttonLabel || 'Submit')}</button></form>`,
	);
}

export function answerRecordedPage(): string {
	return page(
		'Got it, thanks',
		'<h1>Got it, thanks</h1><p>Your answer was recorded. This page can be closed now.</p>',
	);
}
