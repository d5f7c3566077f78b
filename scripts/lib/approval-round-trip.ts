import http from 'node:http';
import https from 'node:https';

import { listExecutions, readExecution, waitFor, type StoredExecution } from '../n8n/executions';
import type { N8nRestClient } from '../n8n/rest-client';
import type { RecordedRequest, SandboxAdmin } from './sandbox-admin';

/** examples/whatsapp-approval.json: its production webhook starts it, Send and Wait asks the manager. */
export const APPROVAL_EXAMPLE = {
	id: 'exWaApproval0001',
	webhookPath: 'order-approval',
	askNode: 'Ask the manager',
	releasedNode: 'Release the order',
	heldNode: 'Hold the order (declined or no answer)',
};

export const SAMPLE_ORDER = {
	order_id: 'ORD-2041',
	amount: 82000,
	customer: 'Lakeview Interiors',
	manager_phone: '+91 98123 45678',
};

/** A phone's browser. Opening a link shows the answer page whoever opens it; only its button answers. */
export const BROWSER_USER_AGENT =
	'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36';

export interface AskedApproval {
	executionId: string;
	question: RecordedRequest;
	/** The links the person can open: approve first, then decline. */
	links: string[];
}

/**
 * The links as the person sees them: in a session text, or behind a template's URL buttons registered as
 * `<n8n URL>/webhook-waiting/{{1}}`, the node's suffix completing each.
 */
export function answerLinksIn(n8nBaseUrl: string, fields: Record<string, unknown>): string[] {
	if (fields.type === 'session') return String(fields.text).match(/https?:\/\/\S+/g) ?? [];
	const { buttons = {} } = JSON.parse(String(fields.components ?? '{}')) as {
		buttons?: Record<string, string>;
	};
	return Object.keys(buttons)
		.sort()
		.map((position) => `${n8nBaseUrl}/webhook-waiting/${buttons[position]}`);
}

/** Posts an order to the example's production webhook and waits until its execution waits for the answer. */
export async function askForApproval(
	n8nBaseUrl: string,
	rest: N8nRestClient,
	sandbox: SandboxAdmin,
	order: Record<string, unknown> = SAMPLE_ORDER,
): Promise<AskedApproval> {
	await waitFor(
		`the webhook /webhook/${APPROVAL_EXAMPLE.webhookPath} to be registered`,
		60_000,
		async () => {
			// n8n answers "not registered" for a while after activation; once it is, a GET is told to use POST.
			const probe = await fetch(`${n8nBaseUrl}/webhook/${APPROVAL_EXAMPLE.webhookPath}`);
			return (await probe.text()).includes('POST') ? true : undefined;
		},
	);
	const earlier = new Set(
		(await listExecutions(rest, APPROVAL_EXAMPLE.id)).map((execution) => execution.id),
	);
	const sentBefore = (await sandbox.requests()).length;
	const response = await fetch(`${n8nBaseUrl}/webhook/${APPROVAL_EXAMPLE.webhookPath}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(order),
	});
	if (!response.ok)
		throw new Error(
			`POST /webhook/${APPROVAL_EXAMPLE.webhookPath} answered ${response.status}: ${await response.text()}`,
		);
	const execution = await waitFor(
		'the approval execution to wait for the answer',
		60_000,
		async () =>
			(await listExecutions(rest, APPROVAL_EXAMPLE.id)).find(
				(candidate) =>
					!earlier.has(candidate.id) && ['waiting', 'error', 'success'].includes(candidate.status),
			),
	);
	if (execution.status !== 'waiting')
		throw new Error(
			`The approval execution ${execution.id} ended "${execution.status}" instead of waiting.`,
		);
	const question = (await sandbox.requests())
		.slice(sentBefore)
		.find((request) => request.path === '/v1/whatsapp/send');
	if (!question)
		throw new Error('The sandbox received no WhatsApp message from the approval execution.');
	return {
		executionId: execution.id,
		question,
		links: answerLinksIn(n8nBaseUrl, question.fields ?? {}),
	};
}

export interface LinkResponse {
	status: number;
	body: string;
}

/**
 * A GET of the link with exactly this user agent; `null` sends no User-Agent header at all, as some link previews
 * do (fetch would add its own).
 */
export async function openLink(
	link: string,
	userAgent: string | null = BROWSER_USER_AGENT,
): Promise<LinkResponse> {
	const headers: Record<string, string> = userAgent === null ? {} : { 'user-agent': userAgent };
	const get = new URL(link).protocol === 'https:' ? https.get : http.get;
	return await new Promise((resolve, reject) => {
		get(link, { headers }, (response) => {
			const chunks: Buffer[] = [];
			response.on('data', (chunk: Buffer) => chunks.push(chunk));
			response.on('end', () =>
				resolve({
					status: response.statusCode ?? 0,
					body: Buffer.concat(chunks).toString('utf8'),
				}),
			);
			response.on('error', reject);
		}).on('error', reject);
	});
}

/** A POST to the link, as the answer page's form sends it (the form has no action: it posts to its own URL). */
export async function postToLink(
	link: string,
	fields: Record<string, string>,
): Promise<LinkResponse> {
	const response = await fetch(link, {
		method: 'POST',
		headers: {
			'user-agent': BROWSER_USER_AGENT,
			'content-type': 'application/x-www-form-urlencoded',
		},
		body: new URLSearchParams(fields).toString(),
		redirect: 'manual',
	});
	return { status: response.status, body: await response.text() };
}

/**
 * What a person does without a browser at hand: open the link, find the page's button with this label and
 * submit its form, the button's name and value included, to the URL the page was opened with.
 */
export async function pressButton(link: string, label: string): Promise<LinkResponse> {
	const page = await openLink(link);
	const buttons = [...page.body.matchAll(/<button type="submit"([^>]*)>([^<]*)<\/button>/g)];
	const button = buttons.find((match) => match[2] === label);
	if (!button)
		throw new Error(
			`The page of ${link.split('?')[0]} (${page.status}) has no "${label}" button: ${page.body.slice(0, 300)}`,
		);
	const name = button[1].match(/name="([^"]*)"/)?.[1];
	const value = button[1].match(/value="([^"]*)"/)?.[1] ?? '';
	return await postToLink(link, name ? { [name]: value } : {});
}

/** The execution once it no longer waits or runs. */
export async function settledExecution(
	rest: N8nRestClient,
	executionId: string,
): Promise<StoredExecution> {
	const settled = await waitFor(`execution ${executionId} to finish`, 60_000, async () => {
		const execution = (await listExecutions(rest, APPROVAL_EXAMPLE.id)).find(
			(candidate) => candidate.id === executionId,
		);
		return execution && !['waiting', 'running', 'new'].includes(execution.status)
			? execution
			: undefined;
	});
	return await readExecution(rest, settled.id);
}
