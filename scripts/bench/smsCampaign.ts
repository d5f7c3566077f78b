import type { INodeExecutionData } from 'n8n-workflow';

import { loadWorkflowFixture, runWorkflow } from '../../test/helpers/runWorkflow';
import type { RunWorkflowOptions, WorkflowJson } from '../../test/helpers/runWorkflow';
import type { CampaignRow } from './campaignRows';
import { HelperFloor } from './helperFloorNode';

export interface NodeRunOutcome {
	wallMs: number;
	delivered: number;
	failed: number;
	firstError?: string;
}

export interface NodeRunSettings {
	baseUrl: string;
	apiKey: string;
	options: Record<string, unknown>;
}

/**
 * `messaging`: the Messaging node in the SMS fixture workflow. `helper-floor`: the yardstick node that does
 * nothing but call n8n's HTTP helper (see helperFloorNode.ts).
 */
export type CampaignSender = 'messaging' | 'helper-floor';

const HELPER_FLOOR_TYPE = 'n8n-nodes-messaging-bench.helperFloor';

function helperFloorWorkflow(): WorkflowJson {
	const fixture = loadWorkflowFixture('sms-send');
	const orders = fixture.nodes.find((node) => node.name === 'Orders')!;
	return {
		name: 'SMS through the bare helper',
		nodes: [
			orders,
			{
				id: 'b5f1a0a4-0000-4000-8000-0000000000f1',
				name: 'Messaging',
				type: HELPER_FLOOR_TYPE,
				typeVersion: 1,
				position: [220, 0],
				credentials: { messagingApi: { id: '1', name: 'Messaging API' } },
				parameters: {},
			},
		],
		connections: fixture.connections,
	};
}

/** What differs between the senders; the run itself is the same workflow harness for both. */
function senderRun(
	sender: CampaignSender,
	settings: NodeRunSettings,
): Pick<RunWorkflowOptions, 'workflow' | 'parameters' | 'extraNodeTypes'> {
	if (sender === 'helper-floor') {
		return {
			workflow: helperFloorWorkflow(),
			extraNodeTypes: { [HELPER_FLOOR_TYPE]: new HelperFloor() },
		};
	}
	return {
		workflow: loadWorkflowFixture('sms-send'),
		parameters: { Messaging: { options: settings.options } },
	};
}

/** Sends the rows through a node in a real workflow run (n8n-core's WorkflowExecute); the Messaging node by default. */
export async function sendThroughNode(
	rows: CampaignRow[],
	settings: NodeRunSettings,
	sender: CampaignSender = 'messaging',
): Promise<NodeRunOutcome> {
	const items: INodeExecutionData[] = rows.map((row) => ({ json: { ...row } }));
	const started = performance.now();
	const { outputs, error } = await runWorkflow({
		...senderRun(sender, settings),
		credentials: { baseUrl: settings.baseUrl, apiKey: settings.apiKey },
		items,
		continueOnFail: true,
	});
	const wallMs = performance.now() - started;
	if (error) throw new Error(`The workflow run failed: ${error.message}`);
	const output = outputs.Messaging ?? [];
	const failedItems = output.filter((item) => item.json.error !== undefined);
	return {
		wallMs,
		delivered: output.length - failedItems.length,
		failed: failedItems.length + Math.max(0, rows.length - output.length),
		...(failedItems.length > 0 ? { firstError: String(failedItems[0].json.error) } : {}),
	};
}
