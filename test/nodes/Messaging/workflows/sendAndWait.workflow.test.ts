import { WAIT_INDEFINITELY } from 'n8n-workflow';
import type { INode, IRun } from 'n8n-workflow';

import * as clockModule from '../../../../nodes/Messaging/throughput/clock';
import { messagingApiCredentials, messagingNode, noOpNode } from '../../../helpers/nodeFixtures';
import type { WorkflowJson } from '../../../helpers/runWorkflow';
import { formFields, useSandbox } from '../../../helpers/sandboxForTests';
import { linksInMessage, WaitingExecutions } from '../../../helpers/waitingExecutions';

/**
 * Send and Wait through n8n-core's WorkflowExecute against the sandbox: the question is sent, the execution
 * waits, and it continues the ways n8n continues a waiting execution: an answer link opened (n8n's waiting
 * webhook route, its signature check included) or the wait time running out (n8n's WaitTracker).
 */
const sandbox = useSandbox();
const order = { order_id: 'ORD-7', amount: 82000, manager: '+919812345678' };

function approvalWorkflow(
	parameters: Record<string, unknown>,
	onError?: INode['onError'],
): WorkflowJson {
	const ask = messagingNode(
		{ resource: 'whatsapp', operation: 'sendAndWait', to: '={{ $json.manager }}', ...parameters },
		{
			name: 'Ask manager',
			id: 'ask-manager',
			credentials: messagingApiCredentials(),
			...(onError ? { onError } : {}),
		},
	);
	const outputs =
		onError === 'continueErrorOutput'
			? [
					[{ node: 'Answered', type: 'main', index: 0 }],
					[{ node: 'Failed', type: 'main', index: 0 }],
				]
			: [[{ node: 'Answered', type: 'main', index: 0 }]];
	return {
		nodes: [noOpNode('Order'), ask, noOpNode('Answered'), noOpNode('Failed')],
		connections: {
			Order: { main: [[{ node: 'Ask manager', type: 'main', index: 0 }]] },
			'Ask manager': { main: outputs as never },
		},
	};
}

const sessionApproval = {
	messageType: 'session',
	message: '={{ "Order " + $json.order_id + " is ₹" + $json.amount + ". Approve it?" }}',
	responseType: 'approval',
	approvalOptions: { values: { approvalType: 'double' } },
};

function executions(parameters: Record<string, unknown>, onError?: INode['onError']) {
	return new WaitingExecutions(approvalWorkflow(parameters, onError), () => ({
		baseUrl: sandbox().url,
		apiKey: sandbox().apiKey,
	}));
}

function sentQuestion() {
	const sends = sandbox()
		.requests()
		.filter((request) => request.path === '/v1/whatsapp/send');
	expect(sends).toHaveLength(1);
	return formFields(sends[0].rawBody);
}

function answered(run: IRun) {
	return run.data.resultData.runData.Answered?.[0]?.data?.main[0]?.map((item) => item.json);
}

describe('Send and Wait for Response, approval in the session window', () => {
	test('sends the question with both links and waits; opening a link shows the page, pressing Approve continues with approved: true once; a second press does nothing', async () => {
		const runtime = executions(sessionApproval);
		const { id, run } = await runtime.start([{ json: order }]);
		expect(run.data.resultData.error?.message).toBeUndefined();
		expect(run.status).toBe('waiting');
		expect(run.waitTill).toEqual(WAIT_INDEFINITELY);
		expect(answered(run)).toBeUndefined();
		const question = sentQuestion();
		expect(question).toMatchObject({ to: '+919812345678', type: 'session' });
		expect(question.text).toMatch(
			/^Order ORD-7 is ₹82000\. Approve it\?\n\n✓ Approve: http\S+\n✗ Decline: http\S+$/,
		);
		const [approve] = linksInMessage(question);
		const waiting = run.data.resultData.runData['Ask manager'][0].data!.main[0]![0].json;
		expect(waiting).toMatchObject({
			answered: false,
			to: '+919812345678',
			message_id: expect.stringMatching(/^msg_/),
		});

		const page = await runtime.open(approve);
		expect(page.status).toBe(200);
		expect(page.body).toContain('<p>Order ORD-7 is ₹82000. Approve it?</p>');
		expect(page.body).toContain(
			'<form method="post"><button type="submit" name="approved" value="true">✓ Approve</button><button type="submit" name="approved" value="false" class="decline">✗ Decline</button></form>',
		);
		expect(page.run).toBeUndefined();
		expect(runtime.execution(id).status).toBe('waiting');

		const opened = await runtime.open(approve, { method: 'POST', body: { approved: 'true' } });
		expect(opened.status).toBe(200);
		expect(opened.body).toContain('Got it, thanks');
		expect(opened.run?.data.resultData.error?.message).toBeUndefined();
		expect(opened.run?.status).toBe('success');
		expect(answered(opened.run!)).toEqual([
			{
				answered: true,
				data: { approved: true },
				respondedBy: '+919812345678',
				respondedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
				to: '+919812345678',
				message_id: waiting.message_id,
			},
		]);
		expect(opened.run!.data.resultData.runData.Answered[0].data!.main[0]![0].pairedItem).toEqual({
			item: 0,
		});

		const again = await runtime.open(approve, { method: 'POST', body: { approved: 'false' } });
		expect(again).toEqual({ status: 200, body: 'send-and-wait-no-action-required' });
		expect(runtime.execution(id).data.resultData.runData.Answered).toHaveLength(1);
		expect(sandbox().requests()).toHaveLength(1);
	});

	test('the decline button continues with approved: false', async () => {
		const runtime = executions(sessionApproval);
		await runtime.start([{ json: order }]);
		const [, decline] = linksInMessage(sentQuestion());
		const opened = await runtime.open(decline, { method: 'POST', body: { approved: 'false' } });
		expect(answered(opened.run!)?.[0]).toMatchObject({ answered: true, data: { approved: false } });
	});

	test('opening a link resumes nothing, whoever opens it: no user agent, a crawler, a preview, a browser', async () => {
		const runtime = executions(sessionApproval);
		const { id } = await runtime.start([{ json: order }]);
		const links = linksInMessage(sentQuestion());
		const openers = [
			null,
			'',
			'WhatsApp/2.23.20.0 A',
			'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
			// A security scanner that follows links with a desktop browser's user agent.
			'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
		];
		for (const link of links)
			for (const userAgent of openers) {
				const opened = await runtime.open(link, { userAgent });
				expect(opened.status).toBe(200);
				expect(opened.body).toContain('name="approved" value="true"');
				expect(opened.run).toBeUndefined();
			}
		expect(runtime.execution(id).status).toBe('waiting');
		expect(new Date(runtime.execution(id).data.waitTill!)).toEqual(WAIT_INDEFINITELY);
	});

	test('a person whose browser calls itself a bot answers like anyone else', async () => {
		const runtime = executions(sessionApproval);
		await runtime.start([{ json: order }]);
		const [approve] = linksInMessage(sentQuestion());
		const userAgent =
			'Mozilla/5.0 (Linux; Android 13; RoboBot X2) WhatsApp/2.24 Mobile Safari/537.36';
		expect((await runtime.open(approve, { userAgent })).body).toContain('✓ Approve</button>');
		const pressed = await runtime.open(approve, {
			method: 'POST',
			userAgent,
			body: { approved: 'true' },
		});
		expect(answered(pressed.run!)?.[0]).toMatchObject({ answered: true, data: { approved: true } });
	});

	test('a POST without a choice, or with a choice the question does not offer, records nothing', async () => {
		const runtime = executions({ ...sessionApproval, approvalOptions: {} });
		const { id } = await runtime.start([{ json: order }]);
		const [approve, decline] = linksInMessage(sentQuestion());
		expect(decline).toBeUndefined();
		for (const body of [{}, { approved: 'false' }, { approved: 'yes' }]) {
			const posted = await runtime.open(approve, { method: 'POST', body });
			expect(posted.status).toBe(400);
			expect(posted.body).toContain('Press one of the buttons to answer.');
			expect(posted.body).not.toContain('value="false"');
			expect(posted.run).toBeUndefined();
		}
		expect(runtime.execution(id).status).toBe('waiting');
	});

	test("a link of another execution, with its answer changed or without its signature is refused by n8n's signature check, for a GET and a POST", async () => {
		const runtime = executions(sessionApproval);
		const first = await runtime.start([{ json: order }]);
		const second = await runtime.start([{ json: { ...order, order_id: 'ORD-8' } }]);
		const [approveFirst] = linksInMessage(formFields(sandbox().requests()[0].rawBody));
		const otherExecution = approveFirst.replace(`/${first.id}/`, `/${second.id}/`);
		expect(await runtime.open(otherExecution)).toEqual({ status: 401, body: 'form-invalid-token' });
		const unsigned = new URL(approveFirst);
		unsigned.searchParams.delete('signature');
		for (const link of [unsigned.href, otherExecution])
			expect(await runtime.open(link, { method: 'POST', body: { approved: 'true' } })).toEqual({
				status: 401,
				body: 'form-invalid-token',
			});
		expect(await runtime.open(approveFirst.replace('approved=true', 'approved=false'))).toEqual({
			status: 401,
			body: 'form-invalid-token',
		});
		expect(runtime.execution(second.id).status).toBe('waiting');
		expect(runtime.execution(first.id).status).toBe('waiting');
	});
});

describe('Send and Wait for Response, outside the window and free text', () => {
	const templateFreeText = {
		messageType: 'template',
		templateName: 'answer_request',
		components: { body: [{ index: 1, value: '={{ $json.order_id }}' }] },
		responseType: 'freeText',
		options: { responseFormTitle: 'Order ORD-7', responseFormDescription: 'Why is it so large?' },
	};

	test('a template carries the form link as its URL button; the form page asks, an empty answer is refused, a text resumes', async () => {
		const runtime = executions(templateFreeText);
		const { id } = await runtime.start([{ json: order }]);
		const question = sentQuestion();
		expect(question).toMatchObject({
			to: '+919812345678',
			type: 'template',
			template_name: 'answer_request',
		});
		const components = JSON.parse(question.components) as {
			body: object;
			buttons: Record<string, string>;
		};
		expect(components.body).toEqual({ '1': 'ORD-7' });
		expect(components.buttons['1']).toMatch(
			new RegExp(`^${id}/ask-manager\\?approved=true&signature=[0-9a-f]{64}$`),
		);
		const [link] = linksInMessage(question);

		const form = await runtime.open(link);
		expect(form.status).toBe(200);
		expect(form.body).toContain('<form method="post">');
		expect(form.body).toContain('<h1>Order ORD-7</h1><p>Why is it so large?</p>');
		expect(runtime.execution(id).status).toBe('waiting');

		const empty = await runtime.open(link, { method: 'POST', body: { text: '   ' } });
		expect(empty.status).toBe(400);
		expect(empty.body).toContain('Write an answer before sending it.');
		expect(runtime.execution(id).status).toBe('waiting');

		const sent = await runtime.open(link, {
			method: 'POST',
			body: { text: ' Bulk order for the Pune branch. ' },
		});
		expect(answered(sent.run!)).toEqual([
			expect.objectContaining({
				answered: true,
				data: { text: 'Bulk order for the Pune branch.' },
				respondedBy: '+919812345678',
			}),
		]);
	});

	test('with Limit Wait Time the execution waits until then, and a timeout continues with answered: false', async () => {
		const runtime = executions({
			...sessionApproval,
			options: {
				limitWaitTime: {
					values: { limitType: 'afterTimeInterval', resumeAmount: 45, resumeUnit: 'minutes' },
				},
			},
		});
		const before = Date.now();
		const { id, run } = await runtime.start([{ json: order }]);
		const waitTill = run.waitTill!.getTime();
		expect(waitTill).toBeGreaterThanOrEqual(before + 45 * 60_000);
		expect(waitTill).toBeLessThan(Date.now() + 45 * 60_000 + 1);

		const timedOut = await runtime.timeOut(id);
		expect(timedOut.status).toBe('success');
		expect(answered(timedOut)).toEqual([
			{
				answered: false,
				data: {},
				respondedBy: null,
				respondedAt: null,
				to: '+919812345678',
				message_id: expect.stringMatching(/^msg_/),
				waitTill: new Date(waitTill).toISOString(),
				answerPage: {
					responseType: 'approval',
					title: '',
					question: 'Order ORD-7 is ₹82000. Approve it?',
					submitLabel: '✓ Approve',
					declineLabel: '✗ Decline',
				},
			},
		]);
		const [approve] = linksInMessage(sentQuestion());
		expect(await runtime.open(approve)).toEqual({
			status: 200,
			body: 'send-and-wait-no-action-required',
		});
	});
});

describe('Send and Wait for Response, after the question is sent', () => {
	test('the page shows the question as sent: expressions are resolved with the item, not again on opening', async () => {
		const runtime = executions({
			messageType: 'session',
			message: '={{ "Why is order " + $json.order_id + " so large?" }}',
			responseType: 'freeText',
			options: { responseFormTitle: '={{ "Order " + $json.order_id }}' },
		});
		const { id } = await runtime.start([{ json: order }]);
		const [link] = linksInMessage(sentQuestion());
		const page = await runtime.open(link);
		expect(page.body).toContain('<h1>Order ORD-7</h1><p>Why is order ORD-7 so large?</p>');
		expect(page.body).toContain('<textarea id="text" name="text"');
		expect(runtime.execution(id).status).toBe('waiting');
	});

	test('an execution left waiting by an earlier version (no page in its data) gets its page from the node', async () => {
		const runtime = executions({
			...sessionApproval,
			approvalOptions: { values: { approvalType: 'double', disapproveLabel: 'Not now' } },
			options: { responseFormTitle: 'Large order' },
		});
		const { id } = await runtime.start([{ json: order }]);
		runtime.rewrite(id, (data) => {
			delete data.executionData!.nodeExecutionStack[0].data.main[0]![0].json.answerPage;
		});
		const [, decline] = linksInMessage(sentQuestion());
		const page = await runtime.open(decline);
		expect(page.body).toContain('<h1>Large order</h1>');
		expect(page.body).toContain('value="false" class="decline">Not now</button>');
		const pressed = await runtime.open(decline, { method: 'POST', body: { approved: 'false' } });
		expect(answered(pressed.run!)?.[0]).toMatchObject({
			answered: true,
			data: { approved: false },
		});
	});

	test('a limit date that passes while the send is retried ends the wait at once, without an error', async () => {
		const realNow = Date.now.bind(Date);
		let shift = 0;
		const sleeps: number[] = [];
		// The node's retry waits pass in virtual time: each one moves the clock on by two minutes.
		const now = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + shift);
		const clock = jest.spyOn(clockModule, 'createSystemClock').mockImplementation(() => ({
			now: () => Date.now(),
			sleep: async (ms: number) => {
				sleeps.push(ms);
				shift += 120_000;
			},
		}));
		try {
			const limit = new Date(realNow() + 60_000);
			sandbox().addFault({
				match: { to: order.manager, times: 1 },
				action: { status: 503, bodyKind: 'json' },
			});
			const runtime = executions({
				...sessionApproval,
				options: {
					idempotencyKey: '=approval-{{ $json.order_id }}',
					limitWaitTime: {
						values: { limitType: 'atSpecifiedTime', maxDateAndTime: limit.toISOString() },
					},
				},
			});
			const { id, run } = await runtime.start([{ json: order }]);
			expect(sleeps).toHaveLength(1);
			expect(Date.now()).toBeGreaterThan(limit.getTime());
			expect(run.data.resultData.error).toBeUndefined();
			expect(run.status).toBe('waiting');
			expect(run.waitTill).toEqual(limit);
			expect(
				sandbox()
					.requests()
					.map((request) => request.response.status),
			).toEqual([503, 200]);
			const timedOut = await runtime.timeOut(id);
			expect(answered(timedOut)?.[0]).toMatchObject({
				answered: false,
				to: '+919812345678',
				waitTill: limit.toISOString(),
			});
		} finally {
			clock.mockRestore();
			now.mockRestore();
		}
	});
});

describe('Send and Wait for Response, when the question cannot be sent', () => {
	const closedWindow = { ...sessionApproval };
	const noWindow = { json: { ...order, manager: '+919812349999' } };

	test('a closed session window stops the run with advice to use a template, and nothing waits', async () => {
		const { run } = await executions(closedWindow).start([noWindow]);
		expect(run.status).toBe('error');
		expect(run.waitTill).toBeUndefined();
		const error = run.data.resultData.error!;
		expect(error.message).toMatch(
			/^The Messaging API rejected the message \(422\): No open 24-hour session/,
		);
		expect(error.description).toContain(
			'send a template message instead (Message Type: Template; for Send and Wait',
		);
	});

	test('with Continue (using error output) the failed send leaves by the error output and nothing waits', async () => {
		const { run } = await executions(closedWindow, 'continueErrorOutput').start([noWindow]);
		expect(run.status).toBe('success');
		expect(run.data.resultData.runData.Answered).toBeUndefined();
		const [failed] = run.data.resultData.runData.Failed[0].data!.main[0]!;
		expect(failed.json).toMatchObject({
			...noWindow.json,
			error: expect.stringMatching(/^The Messaging API rejected the message \(422\)/),
			details: { httpCode: '422', description: expect.stringContaining('Send and Wait') },
		});
	});

	test('more than one item is refused before anything is sent', async () => {
		const { run } = await executions(sessionApproval).start([{ json: order }, { json: order }]);
		expect(run.data.resultData.error?.message).toBe(
			'Send and Wait for Response got 2 items, but it asks one person once per execution',
		);
		expect(sandbox().requests()).toHaveLength(0);
	});
});
