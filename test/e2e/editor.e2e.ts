import path from 'node:path';

import { chromium, type Browser, type Page } from 'playwright-core';

import { CHROMIUM_ARGS, ensureChromium } from '../../scripts/lib/chromium';
import { SANDBOX_API_KEY } from '../../scripts/lib/sandbox-server';
import type { E2eContext } from './context';
import { assert, assertEqual, type CheckRunner } from './harness';
import { listExecutions, waitFor } from '../../scripts/n8n/executions';

const UI_TIMEOUT_MS = 60_000;
const EDITOR_RUN_EXAMPLE = {
	id: 'exWaLeadFollow01',
	trigger: 'Try it with a sample lead',
	messagingNode: 'Send lead follow-up',
};
const ERROR_BRANCH_EXAMPLE = {
	id: 'exSmsErrBranch01',
	trigger: 'Run the campaign',
	branchEnds: ['Mark as sent', 'Review failed rows'],
};
const SMS_FIELDS = ['To', 'DLT Entity ID', 'DLT Template ID', 'Template Variables'];
const TEMPLATE_FIELDS = ['Template Name', 'Components'];
const SESSION_FIELDS = ['Text'];
const WHATSAPP_FIELDS = ['Message Type', ...TEMPLATE_FIELDS, ...SESSION_FIELDS];
const SEND_AND_WAIT_FIELDS = [
	'To',
	'Message Type',
	'Template Name',
	'Components',
	'Response Type',
	'Approval Options',
];
const LINK_BUTTON_FIELDS = ['Link Button Position', 'Decline Link Button Position'];

/** The node as a user meets it in the n8n editor, in Debian's Chromium; screenshots go to docs/screenshots. */
export async function checkEditor(context: E2eContext, runner: CheckRunner): Promise<void> {
	let browser: Browser | undefined;
	try {
		const executablePath = await ensureChromium((line) => console.log(`  › ${line}`));
		browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
		const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
		page.setDefaultTimeout(UI_TIMEOUT_MS);
		await runEditorChecks(context, runner, page);
	} catch (error) {
		await runner.check('Chromium drives the n8n editor', () => {
			throw error;
		});
	} finally {
		await browser?.close();
	}
}

/**
 * Opens the example in the editor and clicks its trigger's "Execute workflow" button; resolves once the manual run
 * succeeded, with how many requests the sandbox had received before it.
 */
async function runFromEditor(
	context: E2eContext,
	page: Page,
	example: { id: string; trigger: string },
): Promise<number> {
	const before = (await context.sandbox.requests()).length;
	await page.goto(`${context.n8nBaseUrl}/workflow/${example.id}`);
	await page.locator('[data-test-id=canvas-wrapper]').waitFor();
	await page
		.locator(`[data-test-id="execute-workflow-button-${example.trigger}"]`)
		.click({ force: true });
	const execution = await waitFor('the editor run to finish', UI_TIMEOUT_MS, async () => {
		const [latest] = await listExecutions(context.rest, example.id);
		const finished = latest?.mode === 'manual' && !['running', 'new'].includes(latest.status);
		return finished ? latest : undefined;
	});
	assertEqual(execution.status, 'success', 'status of the run started in the editor');
	return before;
}

async function runEditorChecks(
	context: E2eContext,
	runner: CheckRunner,
	page: Page,
): Promise<void> {
	const screenshot = async (name: string) => {
		// Banners and buttons fade in; a short settle keeps their labels in the picture.
		await page.waitForTimeout(600);
		await page.screenshot({ path: path.join(context.screenshotsDir, name) });
	};
	const labels = () => visibleParameterLabels(page);

	const signedIn = await runner.check('the owner signs in to the editor', async () => {
		await page.goto(`${context.n8nBaseUrl}/signin`);
		await page.fill('#emailOrLdapLoginId', context.owner.email);
		await page.fill('#password', context.owner.password);
		await page.click('[data-test-id=form-submit-button]');
		await page.waitForURL((url) => !url.pathname.includes('signin'));
	});
	if (!signedIn) return;

	await runner.check(
		'an example sends from the editor with one click on its "Try it" trigger, the ack in its output',
		async () => {
			const before = await runFromEditor(context, page, EDITOR_RUN_EXAMPLE);
			const requests = await context.sandbox.requests();
			assertEqual(requests.length, before + 1, 'requests the sandbox received from the editor run');
			const [sent] = requests.slice(before);
			assertEqual(
				[sent.path, (sent.fields ?? {}).template_name],
				['/v1/whatsapp/send', 'lead_followup'],
				'what the editor run sent',
			);
			await screenshot('example-run-in-editor.png');
			const messageId = (sent.response as { body?: { message_id?: string } }).body?.message_id;
			assert(messageId, 'the sandbox acknowledged without a message id');
			await page
				.locator('[data-test-id=canvas-node]')
				.filter({ hasText: EDITOR_RUN_EXAMPLE.messagingNode })
				.first()
				.dblclick();
			await page.locator('[data-test-id=output-panel]').getByText(messageId).first().waitFor();
			await screenshot('example-run-output.png');
			await page.keyboard.press('Escape');
		},
	);

	await runner.check(
		'the error-branch example run from the editor: 2 items on the success branch, 2 on the error branch',
		async () => {
			const before = await runFromEditor(context, page, ERROR_BRANCH_EXAMPLE);
			assertEqual(
				(await context.sandbox.requests()).length - before,
				3,
				'requests sent (one row failed validation)',
			);
			for (const branchEnd of ERROR_BRANCH_EXAMPLE.branchEnds) {
				const node = page.locator('[data-test-id=canvas-node]').filter({ hasText: branchEnd });
				await node.first().waitFor();
			}
			await page.getByText('2 items').nth(1).waitFor();
			// The "executed successfully" toast would cover the error branch's last node.
			await page
				.locator('.el-notification__closeBtn')
				.first()
				.click({ timeout: 5_000 })
				.catch(() => undefined);
			await screenshot('error-branch-run.png');
		},
	);

	await runner.check(
		'searching "Messaging" in the nodes panel finds the node, with its icon',
		async () => {
			await page.goto(`${context.n8nBaseUrl}/workflow/new`);
			await page.locator('[data-test-id=node-creator-plus-button]').click();
			await page.locator('[data-test-id=node-creator-search-bar]').fill('Manual');
			await page
				.locator('[data-test-id=node-creator-item-name]', { hasText: 'Manual Trigger' })
				.first()
				.click();
			await page.locator('[data-test-id=canvas-handle-plus]').first().click();
			await page.locator('[data-test-id=node-creator-search-bar]').fill('Messaging');
			const item = page.locator(
				'[data-test-id=item-iterator-item][data-keyboard-nav-id^="n8n-nodes-messaging.messaging"]',
			);
			await item.first().waitFor();
			assertEqual(
				(await item.first().locator('[data-test-id=node-creator-item-name]').innerText()).trim(),
				'Messaging',
				'name in the nodes panel',
			);
			const icon = item.first().locator('img').first();
			const src = await icon.getAttribute('src');
			assert(src && src.includes('n8n-nodes-messaging') && src.endsWith('.svg'), `icon src ${src}`);
			// SVGs sized by viewBox report naturalWidth 0, so "rendered" means: loaded, laid out, served as SVG.
			await waitUntil(`the icon ${src} to load`, async () =>
				icon.evaluate((img) => (img as unknown as { complete: boolean }).complete),
			);
			const box = await icon.boundingBox();
			assert(
				box && box.width > 0 && box.height > 0,
				`the icon has no size on screen (${JSON.stringify(box)})`,
			);
			const served = await page.request.get(new URL(src, context.n8nBaseUrl).toString());
			assert(
				served.ok() && (await served.text()).includes('<svg'),
				`the icon is not served as SVG (HTTP ${served.status()})`,
			);
			await screenshot('node-search.png');
		},
	);

	await runner.check(
		'SMS → Send shows To, DLT Entity ID, DLT Template ID, Template Variables, no WhatsApp field',
		async () => {
			await page
				.locator(
					'[data-test-id=item-iterator-item][data-keyboard-nav-id^="n8n-nodes-messaging.messaging"]',
				)
				.first()
				.click();
			await page
				.locator('[data-test-id=node-creator-item-name]', { hasText: 'Send an SMS' })
				.click();
			await page.locator('[data-test-id=ndv]').waitFor();
			await page.locator('[data-test-id=parameter-input-entityId]').waitFor();
			const shown = await labels();
			for (const field of SMS_FIELDS)
				assert(
					shown.includes(field),
					`"${field}" is not shown for SMS (shown: ${shown.join(', ')})`,
				);
			for (const field of WHATSAPP_FIELDS)
				assert(!shown.includes(field), `"${field}" is shown for SMS`);
			await screenshot('sms-send.png');
		},
	);

	await runner.check(
		'WhatsApp → Template shows Template Name and Components, not Text',
		async () => {
			await chooseOption(page, 'resource', 'WhatsApp');
			await page.locator('[data-test-id=parameter-input-templateName]').waitFor();
			assertEqual(await selectedOption(page, 'messageType'), 'Template', 'default message type');
			const shown = await labels();
			for (const field of TEMPLATE_FIELDS)
				assert(
					shown.includes(field),
					`"${field}" is not shown for a template (shown: ${shown.join(', ')})`,
				);
			for (const field of [...SESSION_FIELDS, 'DLT Entity ID', 'DLT Template ID'])
				assert(!shown.includes(field), `"${field}" is shown for a template`);
			await screenshot('whatsapp-template.png');
		},
	);

	await runner.check('WhatsApp → Session shows Text and hides the template fields', async () => {
		await chooseOption(page, 'messageType', 'Session');
		await page.locator('[data-test-id=parameter-input-text]').waitFor();
		const shown = await labels();
		assert(
			shown.includes('Text'),
			`"Text" is not shown for a session message (shown: ${shown.join(', ')})`,
		);
		for (const field of TEMPLATE_FIELDS)
			assert(!shown.includes(field), `"${field}" is shown for a session message`);
		await screenshot('whatsapp-session.png');
	});

	await runner.check(
		'WhatsApp → Send and Wait for Response shows the template, the response type and the link buttons',
		async () => {
			await chooseOption(page, 'operation', 'Send and Wait for Response');
			await chooseOption(page, 'messageType', 'Template');
			await page.locator('[data-test-id=parameter-input-responseType]').waitFor();
			assertEqual(await selectedOption(page, 'responseType'), 'Approval', 'default response type');
			let shown = await labels();
			for (const field of [...SEND_AND_WAIT_FIELDS, ...LINK_BUTTON_FIELDS]) {
				assert(
					shown.includes(field),
					`"${field}" is not shown for Send and Wait (shown: ${shown.join(', ')})`,
				);
			}
			for (const field of ['Text', 'Message'])
				assert(!shown.includes(field), `"${field}" is shown for a template question`);
			// Taller for this one picture, so the response type and the link buttons fit under the template fields.
			await page.setViewportSize({ width: 1440, height: 1380 });
			await screenshot('whatsapp-send-and-wait.png');
			await page.setViewportSize({ width: 1440, height: 900 });
			await chooseOption(page, 'responseType', 'Free Text');
			shown = await labels();
			assert(!shown.includes('Approval Options'), 'Approval Options is shown for Free Text');
			assert(
				!shown.includes('Decline Link Button Position'),
				'the decline button is shown for Free Text',
			);
			await chooseOption(page, 'messageType', 'Session');
			await page.locator('[data-test-id=parameter-input-message]').waitFor();
			shown = await labels();
			assert(
				shown.includes('Message'),
				`"Message" is not shown for a session question (shown: ${shown.join(', ')})`,
			);
			for (const field of ['Template Name', ...LINK_BUTTON_FIELDS])
				assert(!shown.includes(field), `"${field}" is shown for a session question`);
		},
	);

	const dialog = page.locator('[data-test-id=credential-edit-dialog]');
	await runner.check(
		'the credential dialog shows API Key as a password field and Base URL; its test passes against the sandbox',
		async () => {
			await page.locator('[data-test-id=credential-edit-button]').click();
			await dialog.waitFor();
			assertEqual(
				await page.locator('[data-test-id=parameter-input-apiKey] input').getAttribute('type'),
				'password',
				'API Key input type',
			);
			assertEqual(
				await page.locator('[data-test-id=parameter-input-baseUrl] input').inputValue(),
				context.sandboxBaseUrl,
				'Base URL',
			);
			await page.locator('[data-test-id=credential-save-button]').click();
			await dialog.getByText('Connection tested successfully').waitFor();
			await screenshot('credential-test-passes.png');
		},
	);

	await runner.check(
		'with a wrong API key the credential test fails with a clear message',
		async () => {
			await page
				.locator('[data-test-id=parameter-input-apiKey] input')
				.fill('sk_wrong_key_for_e2e');
			await page.locator('[data-test-id=credential-save-button]').click();
			await dialog.getByText('Couldn’t connect with these settings').waitFor();
			await dialog.getByText('More details').click();
			const message = await dialog.getByText('rejected the API key').innerText();
			assert(
				message.includes('(401)') &&
					message.includes('Check the API Key in the Messaging API credential'),
				`unclear message: "${message}"`,
			);
			assert(!message.includes('sk_wrong_key_for_e2e'), 'the message repeats the key');
			await screenshot('credential-test-wrong-key.png');
			await page.locator('[data-test-id=parameter-input-apiKey] input').fill(SANDBOX_API_KEY);
			await page.locator('[data-test-id=credential-save-button]').click();
			await dialog.getByText('Connection tested successfully').waitFor();
		},
	);

	await checkTriggerEvents(context, runner, page);
}

/**
 * The Messaging Trigger as the nodes panel adds it: n8n turns the trigger's Events options into one entry each
 * ("On inbound messages", "On status updates"), which preselects that kind; Channels and Statuses show only
 * while status updates are selected.
 */
async function checkTriggerEvents(
	context: E2eContext,
	runner: CheckRunner,
	page: Page,
): Promise<void> {
	// The workflow left open above has unsaved changes: leave it without saving.
	page.on('dialog', (dialog) => void dialog.accept());
	const events = page.locator('[data-test-id=parameter-input-events]');
	await runner.check(
		'the nodes panel offers the trigger "On inbound messages": Events holds Inbound Messages, no status filter shows',
		async () => {
			await page.goto(`${context.n8nBaseUrl}/workflow/new`);
			await page.locator('[data-test-id=node-creator-plus-button]').click();
			await page.locator('[data-test-id=node-creator-search-bar]').fill('Messaging');
			await page
				.locator(
					'[data-test-id=item-iterator-item][data-keyboard-nav-id^="n8n-nodes-messaging.messaging"]',
				)
				.first()
				.click();
			const entries = page.locator(
				'[data-test-id=item-iterator-item][data-keyboard-nav-id^="n8n-nodes-messaging.messagingTrigger"]',
			);
			await entries.first().waitFor();
			assertEqual(
				await entries.allInnerTexts(),
				['On inbound messages', 'On status updates'],
				'trigger entries in the nodes panel',
			);
			await entries.filter({ hasText: 'On inbound messages' }).click();
			await events.waitFor();
			assertEqual(
				(await events.innerText()).trim(),
				'Inbound Messages',
				'Events of a trigger added "On inbound messages"',
			);
			const shown = await visibleParameterLabels(page);
			assert(
				shown.includes('Events') && !shown.includes('Channels') && !shown.includes('Statuses'),
				`shown: ${shown.join(', ')}`,
			);
		},
	);

	await runner.check('selecting Status Updates as well shows Channels and Statuses', async () => {
		await events.click();
		await page.locator('.el-select-dropdown__item:visible', { hasText: 'Status Updates' }).click();
		await page.keyboard.press('Escape');
		await waitUntil('Statuses to show', async () =>
			(await visibleParameterLabels(page)).includes('Statuses'),
		);
		const selected = await events.innerText();
		assert(
			selected.includes('Inbound Messages') && selected.includes('Status Updates'),
			`selected: ${selected}`,
		);
		assert(
			(await visibleParameterLabels(page)).includes('Channels'),
			'Channels is not shown with status updates selected',
		);
		await page.waitForTimeout(600);
		await page.screenshot({ path: path.join(context.screenshotsDir, 'trigger-events.png') });
	});
}

/** The labels of the parameters the NDV shows, as the user reads them. */
async function visibleParameterLabels(page: Page): Promise<string[]> {
	await page.waitForTimeout(300);
	const texts = await page
		.locator('[data-test-id=ndv] [data-test-id=parameter-item]:visible')
		.allInnerTexts();
	return texts.map((text) => text.split('\n')[0].trim());
}

async function chooseOption(page: Page, parameter: string, option: string): Promise<void> {
	await page.locator(`[data-test-id=parameter-input-${parameter}]`).click();
	await page
		.locator('.list-option:visible')
		.filter({ has: page.locator('.option-headline', { hasText: new RegExp(`^${option}$`) }) })
		.click();
	const input = page.locator(`[data-test-id=parameter-input-${parameter}] input`);
	await waitUntil(
		`${parameter} to change to ${option}`,
		async () => (await input.inputValue()) === option,
	);
}

async function selectedOption(page: Page, parameter: string): Promise<string> {
	return page.locator(`[data-test-id=parameter-input-${parameter}] input`).inputValue();
}

async function waitUntil(what: string, condition: () => Promise<boolean>): Promise<void> {
	await waitFor(what, UI_TIMEOUT_MS, async () => ((await condition()) ? true : undefined));
}
