/** The two links of an Approve and Decline question, or the one link of the others. */
export interface AnswerLinks {
	approve: string;
	decline?: string;
}

export interface LinkLabels {
	approve: string;
	decline: string;
}

/**
 * A session message: the question, then each link on a line of its own after its label. WhatsApp makes a URL
 * on its own line tappable; the text stays readable on any client.
 */
export function sessionText(message: string, links: AnswerLinks, labels: LinkLabels): string {
	const lines = [`${labels.approve}: ${links.approve}`];
	if (links.decline) lines.push(`${labels.decline}: ${links.decline}`);
	return `${message.trim()}\n\n${lines.join('\n')}`;
}

/**
 * n8n's resume links end in `/<execution id>/<node id>?…`: without a prefix the suffix is what follows the
 * waiting-webhook base, so a template registered as `<n8n URL>/webhook-waiting/{{1}}` needs no setting.
 */
export function buttonSuffix(
	link: string,
	prefix: string,
): { suffix: string } | { expectedPrefix: string } {
	const url = new URL(link);
	const segments = url.pathname.split('/');
	const base = `${url.origin}${segments.slice(0, -2).join('/')}/`;
	const wanted = prefix || base;
	if (!link.startsWith(wanted)) return { expectedPrefix: base };
	return { suffix: link.slice(wanted.length) };
}
