import { firstOutputOf, listExecutions } from '../n8n/executions';
import {
	APPROVAL_EXAMPLE,
	askForApproval,
	openLink,
	pressButton,
	SAMPLE_ORDER,
	settledExecution,
} from './approval-round-trip';
import { truncate } from './demo-tables';
import type { LocalStack } from './local-stack';
import type { SandboxAdmin } from './sandbox-admin';

/**
 * The approval example end to end in the running n8n: an order above the limit posted to its webhook, the
 * question the sandbox received, the manager opening the approve link and pressing its button, and the output the execution resumed
 * with. Returns whether the round trip ended approved.
 */
export async function showApprovalRoundTrip(
	stack: LocalStack,
	admin: SandboxAdmin,
): Promise<boolean> {
	console.log(
		'\nApproval round trip (examples/whatsapp-approval.json, WhatsApp → Send and Wait for Response)\n',
	);
	try {
		const order = JSON.stringify(SAMPLE_ORDER);
		console.log(`1. POST /webhook/${APPROVAL_EXAMPLE.webhookPath} ${order}`);
		const asked = await askForApproval(stack.n8n.baseUrl, stack.rest, admin);
		const fields = asked.question.fields ?? {};
		console.log(
			`2. Execution ${asked.executionId} is waiting. The sandbox received for ${String(fields.to)}:`,
		);
		console.log(
			`   template ${String(fields.template_name)} ${truncate(String(fields.components), 160)}`,
		);
		const [approve] = asked.links;
		const heading = (body: string) => body.match(/<h1>(.*?)<\/h1>/)?.[1] ?? truncate(body, 60);
		console.log(
			`3. The manager taps Approve in WhatsApp, which opens the link: GET ${truncate(approve, 110)}`,
		);
		const opened = await openLink(approve);
		const status = (await listExecutions(stack.rest, APPROVAL_EXAMPLE.id)).find(
			(execution) => execution.id === asked.executionId,
		)?.status;
		console.log(
			`   n8n answered ${opened.status} with the answer page "${heading(opened.body)}"; the execution is "${status}"`,
		);
		console.log('   and presses its "✓ Approve" button: POST approved=true to the same signed URL');
		const pressed = await pressButton(approve, '✓ Approve');
		console.log(`   n8n answered ${pressed.status}: "${heading(pressed.body)}"`);
		const execution = await settledExecution(stack.rest, asked.executionId);
		const [answer] = firstOutputOf(execution, APPROVAL_EXAMPLE.askNode);
		console.log(
			`4. Execution ${execution.id} resumed and finished "${execution.status}"; "${APPROVAL_EXAMPLE.askNode}" output:`,
		);
		console.log(`   ${JSON.stringify(answer)}`);
		const released = firstOutputOf(execution, APPROVAL_EXAMPLE.releasedNode).length === 1;
		console.log(`   → "${released ? APPROVAL_EXAMPLE.releasedNode : APPROVAL_EXAMPLE.heldNode}"`);
		return execution.status === 'success' && released;
	} catch (error) {
		console.log(`✗ The approval round trip failed: ${(error as Error).message}`);
		return false;
	}
}
