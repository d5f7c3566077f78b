import { HookContext } from 'n8n-core';
import type { IDataObject, IWorkflowExecuteAdditionalData } from 'n8n-workflow';

import {
	logs,
	savedStaticData,
	triggerNode,
	triggerType,
	triggerWorkflow,
	WEBHOOK_ID,
} from './support/n8nRuntime';

const additionalData = {
	webhookBaseUrl: 'https://n8n.example.com/webhook',
	webhookTestBaseUrl: 'https://n8n.example.com/webhook-test',
} as unknown as IWorkflowExecuteAdditionalData;

const PRODUCTION_URL = `https://n8n.example.com/webhook/${WEBHOOK_ID}/messaging-events`;

function hookContext(staticData: IDataObject) {
	const node = triggerNode();
	const workflow = triggerWorkflow(node, staticData);
	return {
		workflow,
		context: new HookContext(workflow, node, additionalData, 'webhook', 'activate'),
	};
}

describe('Messaging Trigger activation', () => {
	const lifecycle = triggerType.webhookMethods.default;

	beforeEach(() => {
		logs.length = 0;
	});

	it('logs the production URL to paste on first activation and remembers it', async () => {
		const { workflow, context } = hookContext({});

		expect(await lifecycle.checkExists.call(context)).toBe(false);
		expect(await lifecycle.create.call(context)).toBe(true);

		expect(logs).toEqual([
			expect.objectContaining({ level: 'info', message: expect.stringContaining(PRODUCTION_URL) }),
		]);
		expect(savedStaticData(workflow)).toEqual({
			'node:Messaging Trigger': { announcedWebhookUrl: PRODUCTION_URL },
		});
	});

	it('reports the webhook as existing once announced, so a restart stays quiet', async () => {
		const { context } = hookContext({
			'node:Messaging Trigger': { announcedWebhookUrl: PRODUCTION_URL },
		});

		expect(await lifecycle.checkExists.call(context)).toBe(true);
	});

	it('announces again when the URL changed since the last activation', async () => {
		const { context } = hookContext({
			'node:Messaging Trigger': {
				announcedWebhookUrl: 'https://old.example.com/webhook/x/messaging-events',
			},
		});

		expect(await lifecycle.checkExists.call(context)).toBe(false);
	});

	it('forgets the URL on deactivation but keeps the recent event ids', async () => {
		const { workflow, context } = hookContext({
			'node:Messaging Trigger': { announcedWebhookUrl: PRODUCTION_URL, recentEventIds: ['evt_1'] },
		});

		expect(await lifecycle.delete.call(context)).toBe(true);

		expect(savedStaticData(workflow)).toEqual({
			'node:Messaging Trigger': { recentEventIds: ['evt_1'] },
		});
	});
});
