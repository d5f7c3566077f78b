import path from 'node:path';

import { chromium, type Browser, type Page } from 'playwright-core';

import { CHROMIUM_ARGS, ensureChromium } from '../../scripts/lib/chromium';
import { AI_ASSISTANT_EXAMPLE_ID, triggerPathOf } from '../../scripts/lib/examples';
import type { RecordedRequest } from '../../scripts/lib/sandbox-admin';
import type { ModelDoubleAdmin } from '../../scripts/model-double/admin';
import { userMessages } from '../../scripts/model-double/conversation';
import { waitFor } from '../../scripts/n8n/executions';
import type { E2eContext } from './context';
import { assert, assertEqual, type CheckRunner } from './harness';

const REPLY_TIMEOUT_MS = 60_000;
const UI_TIMEOUT_MS = 60_000;
/** Numbers no other check writes from. */
const CUSTOMER = '+919877700010';
const OTHER_CUSTOMER = '+919877700011';

async function repliesTo(context: E2eContext, to: string): Promise<RecordedRequest[]> {
	return (await context.sandbox.requests()).filter(
		(request) => request.path === '/v1/whatsapp/send' && request.fields?.to === to,
	);
}

/** The customer writes; resolves with the reply the sandbox received for them, the `count`-th one. */
async function customerWrites(
	context: E2eContext,
	from: string,
	text: string,
	count: number,
): Promise<RecordedRequest> {
	await context.sandbox.simulateInbound({ from, text });
	return waitFor(`reply number ${count} to ${from}`, REPLY_TIMEOUT_MS, async () => {
		const replies = await repliesTo(context, from);
		return replies.length >= count ? replies[count - 1] : undefined;
	});
}

/** The WhatsApp assistant example, active in n8n, with the model double as its echoing model. */
export async function checkAiAssistantExample(
	context: E2eContext,
	runner: CheckRunner,
	model: ModelDoubleAdmin,
): Promise<void> {
	const example = context.examples.find(
		(candidate) => candidate.workflow.id === AI_ASSISTANT_EXAMPLE_ID,
	);
	if (!example) {
		runner.skipBecause('the WhatsApp assistant answers', `no example ${AI_ASSISTANT_EXAMPLE_ID}`);
		return;
	}
	await model.echo();
	await context.sandbox.setAccountWebhook(`${context.n8nBaseUrl}${triggerPathOf(example)}`);
	try {
		await runner.check(
			'the WhatsApp assistant example answers a customer through the agent, to the number that wrote and only there',
			async () => {
				await model.clearRequests();
				const question = 'Where is my order 1234?';
				const reply = await customerWrites(context, CUSTOMER, question, 1);
				assertEqual(
					reply.fields,
					{ to: CUSTOMER, type: 'session', text: `Thanks for your message: "${question}".` },
					'the reply the sandbox received',
				);
				assertEqual((reply.response as { status?: number }).status, 200, 'sandbox answer');
				const [asked] = await model.requests();
				assertEqual(asked.conversation?.tools, [], 'tools the model was offered (none sends)');
			},
		);
		await runner.check(
			"a second message from the same customer is answered with the first in the agent's memory; another customer's is not",
			async () => {
				await model.clearRequests();
				const first = 'Where is my order 1234?';
				const second = 'Can it come on Friday?';
				const reply = await customerWrites(context, CUSTOMER, second, 2);
				assertEqual(
					reply.fields?.text,
					`Thanks for your message: "${second}". Earlier you wrote: "${first}".`,
					'the second reply',
				);
				const [asked] = await model.requests();
				assertEqual(
					asked.conversation?.messages,
					[
						{ role: 'user', text: first },
						{ role: 'assistant', text: `Thanks for your message: "${first}".` },
						{ role: 'user', text: second },
					],
					'the conversation the model got',
				);
				const other = await customerWrites(context, OTHER_CUSTOMER, 'Hello', 1);
				assertEqual(
					other.fields?.text,
					'Thanks for your message: "Hello".',
					"the other customer's reply",
				);
				const otherAsked = (await model.requests()).at(-1);
				assertEqual(userMessages(otherAsked!.conversation!), ['Hello'], 'what the model got');
			},
		);
	} finally {
		await context.sandbox.setAccountWebhook(null);
	}
}

/** Screenshots for the README: the assistant example and a Messaging tool as the agent's tool. */
export async function checkAgentInEditor(
	context: E2eContext,
	runner: CheckRunner,
	smsAgentWorkflowId: string | undefined,
): Promise<void> {
	let browser: Browser | undefined;
	try {
		const executablePath = await ensureChromium((line) => console.log(`  › ${line}`));
		browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
		const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
		page.setDefaultTimeout(UI_TIMEOUT_MS);
		await signIn(context, page);
		await runner.check('the WhatsApp assistant example opens in the editor', async () => {
			await page.goto(`${context.n8nBaseUrl}/workflow/${AI_ASSISTANT_EXAMPLE_ID}`);
			await page.locator('[data-test-id=canvas-node][data-node-name="AI Agent"]').waitFor();
			await screenshot(context, page, 'whatsapp-ai-assistant.png');
		});
		if (!smsAgentWorkflowId) return;
		await runner.check(
			'the Messaging node as a tool shows its Tool Description and the $fromAI() fields',
			async () => {
				await page.goto(`${context.n8nBaseUrl}/workflow/${smsAgentWorkflowId}`);
				const node = page.locator('[data-test-id=canvas-node][data-node-name="Send SMS"]');
				await node.waitFor();
				await node.dblclick();
				await page.locator('[data-test-id=ndv]').waitFor();
				await page.locator('[data-test-id=parameter-input-toolDescription]').waitFor();
				await screenshot(context, page, 'ai-agent-sms-tool.png');
			},
		);
	} catch (error) {
		await runner.check('Chromium opens the agent workflows', () => {
			throw error;
		});
	} finally {
		await browser?.close();
	}
}

async function signIn(context: E2eContext, page: Page): Promise<void> {
	await page.goto(`${context.n8nBaseUrl}/signin`);
	await page.fill('#emailOrLdapLoginId', context.owner.email);
	await page.fill('#password', context.owner.password);
	await page.click('[data-test-id=form-submit-button]');
	await page.waitForURL((url) => !url.pathname.includes('signin'));
	assert(!page.url().includes('signin'), 'signed in');
}

async function screenshot(context: E2eContext, page: Page, name: string): Promise<void> {
	// Nodes and edges fade in; a short settle keeps them in the picture.
	await page.waitForTimeout(800);
	await page.screenshot({ path: path.join(context.screenshotsDir, name) });
}
