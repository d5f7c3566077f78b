import { chromium, type Browser } from 'playwright-core';

import {
	APPROVAL_EXAMPLE,
	askForApproval,
	BROWSER_USER_AGENT,
	openLink,
	postToLink,
	SAMPLE_ORDER,
	settledExecution,
	type AskedApproval,
} from '../../scripts/lib/approval-round-trip';
import { CHROMIUM_ARGS, ensureChromium } from '../../scripts/lib/chromium';
import { firstOutputOf, listExecutions } from '../../scripts/n8n/executions';
import type { N8nRestClient } from '../../scripts/n8n/rest-client';
import type { E2eContext } from './context';
import { assert, assertEqual, type CheckRunner } from './harness';

/** Whoever opens a link: a preview without a user agent, a crawler, WhatsApp's preview, a security scanner. */
const LINK_OPENERS: Array<string | null> = [
	null,
	'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
	'WhatsApp/2.24.6.77 A',
	'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
	BROWSER_USER_AGENT,
];

async function isWaiting(rest: N8nRestClient, executionId: string): Promise<boolean> {
	const executions = await listExecutions(rest, APPROVAL_EXAMPLE.id);
	return executions.some(
		(execution) => execution.id === executionId && execution.status === 'waiting',
	);
}

/** The link with its signature removed, or with one character of it changed. */
function withoutSignature(link: string): string {
	const url = new URL(link);
	url.searchParams.delete('signature');
	return url.href;
}

function withForgedSignature(link: string): string {
	const url = new URL(link);
	const signature = url.searchParams.get('signature') ?? '';
	url.searchParams.set('signature', `${signature[0] === 'a' ? 'b' : 'a'}${signature.slice(1)}`);
	return url.href;
}

/**
 * The approval example in a real n8n: started by its production webhook, it sends the template with the signed
 * links and waits; the test opens the links the sandbox received as previews, scanners and people would, and
 * answers in headless Chromium by pressing the page's button, as the manager would.
 */
export async function checkSendAndWait(context: E2eContext, runner: CheckRunner): Promise<void> {
	const { n8nBaseUrl, rest, sandbox } = context;
	let approval: Awaited<ReturnType<typeof askForApproval>> | undefined;
	await runner.check(
		'Send and Wait sends the template with both signed links as URL button suffixes, and waits',
		async () => {
			approval = await askForApproval(n8nBaseUrl, rest, sandbox);
			const fields = approval.question.fields ?? {};
			assertEqual(
				[fields.to, fields.type, fields.template_name],
				['+919812345678', 'template', 'approval_request'],
				'sent',
			);
			const components = JSON.parse(String(fields.components)) as {
				body: object;
				buttons: Record<string, string>;
			};
			assertEqual(
				components.body,
				{ 1: `${SAMPLE_ORDER.order_id} for ${SAMPLE_ORDER.customer}`, 2: '₹82000' },
				'body',
			);
			const suffix = new RegExp(
				`^${approval.executionId}/[0-9a-f-]+\\?approved=(true|false)&signature=[0-9a-f]{64}$`,
			);
			for (const position of ['1', '2'])
				assert(
					suffix.test(components.buttons[position]),
					`button ${position}: ${components.buttons[position]}`,
				);
		},
	);
	if (!approval) return;
	const asked: AskedApproval = approval;
	const [approve] = asked.links;

	await runner.check(
		"opening a link resumes nothing, whoever opens it (no user agent, a crawler, WhatsApp's preview, a scanner, a browser): each gets the page with the order and its buttons",
		async () => {
			for (const link of asked.links)
				for (const userAgent of LINK_OPENERS) {
					const opened = await openLink(link, userAgent);
					assertEqual(opened.status, 200, `status of a GET by ${userAgent ?? '(no user agent)'}`);
					assert(
						opened.body.includes('<h1>Order ORD-2041</h1>') &&
							opened.body.includes('name="approved" value="true"') &&
							opened.body.includes('name="approved" value="false"'),
						`page for ${userAgent ?? '(no user agent)'}: ${opened.body.slice(0, 300)}`,
					);
				}
			assert(await isWaiting(rest, asked.executionId), 'the execution still waits after 10 GETs');
		},
	);

	await runner.check(
		"a POST without the link's valid signature, with a changed answer or another execution's id gets 401 and resumes nothing",
		async () => {
			const other = await askForApproval(n8nBaseUrl, rest, sandbox, {
				...SAMPLE_ORDER,
				order_id: 'ORD-2042',
			});
			const refused = {
				'no signature': withoutSignature(approve),
				'a forged signature': withForgedSignature(approve),
				'a changed answer': approve.replace('approved=true', 'approved=false'),
				"another execution's id": approve.replace(
					`/${asked.executionId}/`,
					`/${other.executionId}/`,
				),
			};
			for (const [what, link] of Object.entries(refused)) {
				assertEqual(
					(await postToLink(link, { approved: 'true' })).status,
					401,
					`POST with ${what}`,
				);
				assertEqual((await openLink(link)).status, 401, `GET with ${what}`);
			}
			assert(await isWaiting(rest, asked.executionId), 'the first execution still waits');
			assert(await isWaiting(rest, other.executionId), 'the second execution still waits');

			// Two presses of Decline at the same moment: n8n resumes a waiting execution only while it still waits.
			const presses = await Promise.all([
				postToLink(other.links[1], { approved: 'false' }),
				postToLink(other.links[1], { approved: 'false' }),
			]);
			assert(
				presses.some((press) => press.status === 200 && press.body.includes('Got it, thanks')),
				`decline presses answered ${presses.map((press) => press.status).join(', ')}`,
			);
			const held = await settledExecution(rest, other.executionId);
			assertEqual(
				firstOutputOf(held, APPROVAL_EXAMPLE.askNode)[0]?.data,
				{ approved: false },
				'the declined answer',
			);
			assertEqual(
				held.runData[APPROVAL_EXAMPLE.heldNode]?.length,
				1,
				'runs of the hold branch after two presses',
			);
			assertEqual(
				held.runData[APPROVAL_EXAMPLE.releasedNode],
				undefined,
				'runs of the release branch',
			);
		},
	);

	await runner.check(
		'headless Chromium opens the approve link and presses Approve: the execution resumes once with approved: true; a second press changes nothing',
		async () => {
			let browser: Browser | undefined;
			try {
				const executablePath = await ensureChromium((line) => console.log(`  › ${line}`));
				browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
				await pressApproveInChromium(browser, context, asked);
			} finally {
				await browser?.close();
			}
		},
	);
}

async function pressApproveInChromium(
	browser: Browser,
	{ rest }: E2eContext,
	asked: AskedApproval,
): Promise<void> {
	const [approve] = asked.links;
	// Two tabs on the link: the second press comes from a page opened before the first press.
	const first = await browser.newPage();
	const second = await browser.newPage();
	for (const page of [first, second]) {
		await page.goto(approve);
		assertEqual(
			await page.locator('h1').textContent(),
			'Order ORD-2041',
			'heading of the answer page',
		);
	}
	assert(await isWaiting(rest, asked.executionId), 'the execution waits while the page is open');
	await first.getByRole('button', { name: '✓ Approve' }).click();
	await first.getByText('Got it, thanks').waitFor();

	const execution = await settledExecution(rest, asked.executionId);
	assertEqual(execution.status, 'success', 'status of the resumed execution');
	const [answer] = firstOutputOf(execution, APPROVAL_EXAMPLE.askNode);
	assertEqual(
		[answer?.answered, answer?.data, answer?.respondedBy],
		[true, { approved: true }, '+919812345678'],
		'answer',
	);
	assert(
		typeof answer?.respondedAt === 'string' && !Number.isNaN(Date.parse(answer.respondedAt)),
		'respondedAt',
	);
	assertEqual(
		firstOutputOf(execution, APPROVAL_EXAMPLE.releasedNode).length,
		1,
		'the order is released',
	);

	await second.getByRole('button', { name: '✗ Decline' }).click();
	await second.waitForLoadState();
	const afterSecond = (await second.content()) ?? '';
	assert(!afterSecond.includes('Got it, thanks'), 'the second press recorded an answer again');
	const after = await settledExecution(rest, asked.executionId);
	assertEqual(
		[
			after.runData[APPROVAL_EXAMPLE.releasedNode]?.length,
			after.runData[APPROVAL_EXAMPLE.heldNode],
		],
		[1, undefined],
		'runs of "Release the order" and "Hold the order" after the second press',
	);
	assertEqual(
		firstOutputOf(after, APPROVAL_EXAMPLE.askNode)[0]?.data,
		{ approved: true },
		'the answer after the second press',
	);
}
