import type { IHookFunctions } from 'n8n-workflow';

const ANNOUNCED_URL_KEY = 'announcedWebhookUrl';

/*
 * The Messaging API has no endpoint to register a webhook (README, "API assumptions"), so the user
 * pastes the URL. Activation therefore registers nothing remotely: it logs the URL to paste and
 * remembers it until deactivation, so n8n restarts, which re-check active webhooks, stay quiet.
 */
export function isWebhookUrlAnnounced(context: IHookFunctions): boolean {
	const staticData = context.getWorkflowStaticData('node');
	return staticData[ANNOUNCED_URL_KEY] === context.getNodeWebhookUrl('default');
}

export function announceWebhookUrl(context: IHookFunctions): void {
	const webhookUrl = context.getNodeWebhookUrl('default');
	context.logger.info(
		`Messaging Trigger Production URL: ${webhookUrl}. Use it as the SMS callback_url or the account webhook URL.`,
		{ node: context.getNode().name, workflowId: context.getWorkflow().id },
	);
	context.getWorkflowStaticData('node')[ANNOUNCED_URL_KEY] = webhookUrl;
}

export function forgetWebhookUrl(context: IHookFunctions): void {
	delete context.getWorkflowStaticData('node')[ANNOUNCED_URL_KEY];
}
