import {
	APPROVAL_EXAMPLE,
	askForApproval,
	openLink,
	SAMPLE_ORDER,
	settledExecution,
} from '../../scripts/lib/approval-round-trip';
import { firstOutputOf, listExecutions } from '../../scripts/n8n/executions';
import type { E2eContext } from './context';
import { assert, assertEqual, type CheckRunner } from './harness';

/**
 * The approval example in a real n8n: started by its production webhook, it sends the template with the signed
 * links and waits; the test opens the link the sandbox received, as the manager's phone would.
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
	const [approve] = approval.links;

	await runner.check(
		"a link preview, a changed answer and another execution's link resume nothing; two decline taps resume once",
		async () => {
			assertEqual(
				(await openLink(approve, 'WhatsApp/2.24.6.77 A')).body,
				'',
				'what a link preview gets',
			);
			assertEqual(
				(await openLink(approve.replace('approved=true', 'approved=false'))).status,
				401,
				'a changed answer',
			);
			const other = await askForApproval(n8nBaseUrl, rest, sandbox, {
				...SAMPLE_ORDER,
				order_id: 'ORD-2042',
			});
			const crossed = approve.replace(`/${approval!.executionId}/`, `/${other.executionId}/`);
			assertEqual((await openLink(crossed)).status, 401, "another execution's id in the link");
			const waiting = (await listExecutions(rest, APPROVAL_EXAMPLE.id)).filter(
				(execution) => execution.status === 'waiting',
			);
			assert(
				waiting.some((execution) => execution.id === approval!.executionId),
				'the first execution still waits',
			);
			// Two taps at the same moment: n8n resumes a waiting execution only while it still waits.
			const taps = await Promise.all([openLink(other.links[1]), openLink(other.links[1])]);
			assert(
				taps.some((tap) => tap.status === 200),
				`decline taps answered ${taps.map((tap) => tap.status).join(', ')}`,
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
				'runs of the hold branch after two taps',
			);
			assertEqual(
				held.runData[APPROVAL_EXAMPLE.releasedNode],
				undefined,
				'runs of the release branch',
			);
		},
	);

	await runner.check(
		'opening the approve link resumes the execution once with approved: true; a second tap changes nothing',
		async () => {
			const opened = await openLink(approve);
			assertEqual(opened.status, 200, 'status of the opened link');
			assert(
				opened.body.includes('Got it, thanks'),
				`page after the tap: ${opened.body.slice(0, 200)}`,
			);
			const execution = await settledExecution(rest, approval!.executionId);
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
			const again = await openLink(approve);
			assertEqual(again.status, 200, 'status of the second tap');
			assert(!again.body.includes('Got it, thanks'), 'the second tap recorded an answer again');
			const after = await settledExecution(rest, approval!.executionId);
			assertEqual(
				after.runData[APPROVAL_EXAMPLE.releasedNode]?.length,
				1,
				'runs of "Release the order" after the second tap',
			);
		},
	);
}
