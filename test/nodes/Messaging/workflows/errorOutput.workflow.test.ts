import type { INodeExecutionData } from 'n8n-workflow';

import { noOpNode } from '../../../helpers/nodeFixtures';
import { formFields, useSandbox } from '../../../helpers/sandboxForTests';
import { loadWorkflowFixture, runWorkflow } from '../../../helpers/runWorkflow';
import type { WorkflowJson } from '../../../helpers/runWorkflow';

const sandbox = useSandbox();

/** Orders → Messaging, its success output wired to "Sent" and its error output to "Failed", as a campaign flow does. */
function campaignWithErrorBranch(): WorkflowJson {
	const base = loadWorkflowFixture('sms-send');
	const passThrough = (name: string, x: number) =>
		noOpNode(name, { id: `error-output-${name}`, position: [x, 0] });
	return {
		...base,
		nodes: [...base.nodes, passThrough('Sent', 440), passThrough('Failed', 440)],
		connections: {
			...base.connections,
			Messaging: {
				main: [
					[{ node: 'Sent', type: 'main', index: 0 }],
					[{ node: 'Failed', type: 'main', index: 0 }],
				],
			},
		},
	};
}

const rows = [
	{ phone: '+919812345601', name: 'Asha', orderId: '1', eta: 'Mon' },
	{ phone: '98123 4560', name: 'Ravi', orderId: '2', eta: 'Tue' },
	{
		phone: '+919812345603',
		name: 'Meera',
		orderId: '3',
		eta: 'Wed',
		templateId: '1207169999999999999',
	},
	{ phone: '+919812345604', name: 'Kiran', orderId: '4', eta: 'Thu' },
	{ phone: '+919812345605', name: 'Dev', orderId: '5', eta: 'Fri' },
];
const validRows = [0, 3, 4];
const invalidRows = { validation: 1, api404: 2 };
const templateFromItem = { templateId: '={{ $json.templateId ?? "1207161111111111111" }}' };

function credentials() {
	return { baseUrl: sandbox().url, apiKey: sandbox().apiKey };
}

function acknowledgementsByPhone(): Map<string, unknown> {
	return new Map(
		sandbox()
			.requests()
			.filter((request) => request.response.status === 200)
			.map((request) => [formFields(request.rawBody).to, request.response.body]),
	);
}

function pairing(items: INodeExecutionData[]) {
	return items.map((item) => item.pairedItem);
}

describe('On Error → Continue (using error output)', () => {
	test('acknowledgements leave by the success output in input order, failed items by the error output, each paired to its input', async () => {
		const { outputs, errorOutputs, error } = await runWorkflow({
			workflow: campaignWithErrorBranch(),
			credentials: credentials(),
			items: rows.map((json) => ({ json })),
			parameters: { Messaging: { ...templateFromItem, options: { maxConcurrency: 3 } } },
			onError: 'continueErrorOutput',
		});

		expect(error).toBeUndefined();
		const acknowledgements = acknowledgementsByPhone();
		expect([...acknowledgements.keys()].sort()).toEqual(
			validRows.map((row) => rows[row].phone).sort(),
		);

		expect(pairing(outputs.Messaging)).toEqual(validRows.map((item) => ({ item })));
		expect(outputs.Messaging.map((item) => item.json)).toEqual(
			validRows.map((row) => acknowledgements.get(rows[row].phone)),
		);
		expect(outputs.Sent.map((item) => item.json)).toEqual(
			outputs.Messaging.map((item) => item.json),
		);

		const failed = errorOutputs.Messaging;
		expect(pairing(failed)).toEqual([
			{ item: invalidRows.validation },
			{ item: invalidRows.api404 },
		]);
		expect(failed[0].json).toEqual({
			...rows[invalidRows.validation],
			error: `Item 1: 'To' "98123 4560" has no country code`,
			details: { description: expect.stringContaining('Default Country Code') },
		});
		expect(failed[1].json).toEqual({
			...rows[invalidRows.api404],
			error: expect.stringMatching(/^The Messaging API did not find what was asked for \(404\)/),
			details: { description: expect.stringContaining('DLT Template ID'), httpCode: '404' },
		});
		expect(outputs.Failed.map((item) => item.json)).toEqual(failed.map((item) => item.json));
		expect(JSON.stringify([outputs, errorOutputs])).not.toContain(sandbox().apiKey);
	});

	test('an API failure of every item empties the success output, and nothing is sent again', async () => {
		sandbox().addFault({
			match: { path: '/v1/sms/send' },
			action: { status: 503, bodyKind: 'json' },
		});
		const valid = validRows.map((row) => ({ json: rows[row] }));
		const { outputs, errorOutputs, error } = await runWorkflow({
			workflow: campaignWithErrorBranch(),
			credentials: credentials(),
			items: valid,
			onError: 'continueErrorOutput',
		});

		expect(error).toBeUndefined();
		expect(outputs.Messaging ?? []).toEqual([]);
		expect(outputs.Sent).toBeUndefined();
		expect(pairing(errorOutputs.Messaging)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		for (const [index, item] of errorOutputs.Messaging.entries()) {
			expect(item.json).toEqual({
				...valid[index].json,
				error: expect.stringMatching(/^The Messaging API failed on its side \(503\)/),
				details: { description: expect.stringContaining('provider-side problem'), httpCode: '503' },
			});
		}
		expect(sandbox().requests()).toHaveLength(valid.length);
	});
});

describe('On Error → Continue (using regular output)', () => {
	test('every item stays in its own slot of the one output, failures as { error, description, httpCode? }', async () => {
		const { outputs, errorOutputs, error } = await runWorkflow({
			workflow: campaignWithErrorBranch(),
			credentials: credentials(),
			items: rows.map((json) => ({ json })),
			parameters: { Messaging: templateFromItem },
			onError: 'continueRegularOutput',
		});

		expect(error).toBeUndefined();
		expect(errorOutputs.Messaging).toBeUndefined();
		expect(outputs.Failed).toBeUndefined();
		expect(pairing(outputs.Messaging)).toEqual(rows.map((_row, item) => ({ item })));
		expect(outputs.Messaging[invalidRows.validation]).toEqual({
			json: {
				error: `Item 1: 'To' "98123 4560" has no country code`,
				description: expect.any(String),
			},
			pairedItem: { item: invalidRows.validation },
		});
		expect(outputs.Messaging[invalidRows.api404].json).toEqual({
			error: expect.stringMatching(/\(404\)/),
			description: expect.any(String),
			httpCode: '404',
		});
		const acknowledgements = acknowledgementsByPhone();
		for (const row of validRows)
			expect(outputs.Messaging[row].json).toEqual(acknowledgements.get(rows[row].phone));
		expect(outputs.Sent).toHaveLength(rows.length);
	});
});
