import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions } from 'n8n-workflow';

import {
	buttonSuffix,
	sessionText,
	type AnswerLinks,
	type LinkLabels,
} from '../../sendAndWait/links';
import type { AnswerPage } from '../../sendAndWait/pages';
import { sendAndWaitFields } from './sendAndWaitFields';
import { issueToNodeError } from '../../validation/issueToNodeError';
import { sendAndWaitFieldGuide, sendAndWaitSchema } from '../../validation/sendAndWaitSchema';
import type { SendAndWaitInput, TemplateQuestion } from '../../validation/sendAndWaitSchema';
import type { ItemParameters } from '../common/itemParameters';
import type { PreparedItem } from '../types';
import { reviewMessage, runsAsHumanReview } from '../toolMode';

export { putToWait as afterSend } from '../../sendAndWait/waiting';

/** One person answers one execution, so the node asks once: it waits for exactly one answer. */
export const singleItem = true;

export const waitsForAnswer = true;

export const description = sendAndWaitFields;

const SESSION_TEXT_LIMIT = 4096;

/**
 * As Human review n8n hides Response Type at Approval, the only answer its agent reads (`approved`), so a
 * Free Text saved in the workflow is not used there.
 */
function readInput(parameters: ItemParameters, itemIndex: number): Record<string, unknown> {
	const read = (name: string, fallback: unknown) => parameters.read(name, itemIndex, fallback);
	const review = runsAsHumanReview(parameters.context);
	return {
		to: read('to', ''),
		messageType: read('messageType', 'template'),
		message: review ? reviewMessage(parameters.context, itemIndex) : read('message', ''),
		templateName: read('templateName', ''),
		...parameters.readRowsOrJson(itemIndex, {
			mode: 'componentsInputMode',
			rows: 'components',
			json: 'componentsJson',
		}),
		responseType: review ? 'approval' : read('responseType', 'approval'),
		approvalType: read('approvalOptions.values.approvalType', 'single'),
		linkButton: read('linkButton', 1),
		declineLinkButton: read('declineLinkButton', 2),
		limitWaitTime: parameters.readOption('limitWaitTime', itemIndex),
		buttonUrlPrefix: parameters.readOption('buttonUrlPrefix', itemIndex),
		defaultCountryCode: parameters.readOption('defaultCountryCode', itemIndex),
	};
}

/** n8n signs these links for this execution and node; its waiting-webhook route checks the signature. */
function answerLinks(context: IExecuteFunctions, withDecline: boolean): AnswerLinks {
	const approve = context.getSignedResumeUrl({ approved: 'true' });
	return withDecline
		? { approve, decline: context.getSignedResumeUrl({ approved: 'false' }) }
		: { approve };
}

/** The words of the answer: before each link in a session text, and on the page's buttons. */
function answerLabels(input: SendAndWaitInput, parameters: ItemParameters, itemIndex: number) {
	const label = (name: string, fallback: string) =>
		String(parameters.read(name, itemIndex, fallback) || fallback);
	if (input.responseType === 'freeText')
		return {
			links: { approve: label('options.messageButtonLabel', 'Respond'), decline: '' },
			submit: label('options.responseFormButtonLabel', 'Submit'),
		};
	const links = {
		approve: label('approvalOptions.values.approveLabel', '✓ Approve'),
		decline: label('approvalOptions.values.disapproveLabel', '✗ Decline'),
	};
	return { links, submit: links.approve };
}

/** What the page asks: the session's message; as Human review also with a template, what the agent wants to run. */
function questionOf(input: SendAndWaitInput, parameters: ItemParameters, itemIndex: number) {
	if (input.question.type === 'session') return input.question.message.trim();
	if (!runsAsHumanReview(parameters.context)) return '';
	const message = reviewMessage(parameters.context, itemIndex);
	return typeof message === 'string' ? message.trim() : '';
}

/** The page is fixed with the message, from the item's own values, so both say the same. */
function answerPageFor(
	input: SendAndWaitInput,
	labels: ReturnType<typeof answerLabels>,
	parameters: ItemParameters,
	itemIndex: number,
): AnswerPage {
	const option = (name: string) => String(parameters.readOption(name, itemIndex) ?? '');
	return {
		responseType: input.responseType,
		title: option('responseFormTitle'),
		question: option('responseFormDescription') || questionOf(input, parameters, itemIndex),
		submitLabel: labels.submit,
		...(input.withDecline ? { declineLabel: labels.links.decline } : {}),
	};
}

function sessionRequest(
	input: SendAndWaitInput,
	message: string,
	labels: LinkLabels,
	parameters: ItemParameters,
	itemIndex: number,
) {
	const text = sessionText(message, answerLinks(parameters.context, input.withDecline), labels);
	if (text.length > SESSION_TEXT_LIMIT) {
		throw new NodeOperationError(
			parameters.context.getNode(),
			`Item ${itemIndex}: 'Message' is ${text.length} characters long with the answer links, more than the ${SESSION_TEXT_LIMIT} WhatsApp allows`,
			{
				itemIndex,
				description: `Shorten the message by ${text.length - SESSION_TEXT_LIMIT} characters or more.`,
			},
		);
	}
	return { to: input.to, type: 'session', text };
}

function suffixOf(
	link: string,
	question: TemplateQuestion,
	parameters: ItemParameters,
	itemIndex: number,
): string {
	const split = buttonSuffix(link, question.buttonUrlPrefix);
	if ('suffix' in split) return split.suffix;
	const { label } = sendAndWaitFieldGuide.buttonUrlPrefix;
	throw new NodeOperationError(
		parameters.context.getNode(),
		`Item ${itemIndex}: the answer link ${link.split('?')[0]} does not start with '${label}' "${question.buttonUrlPrefix}"`,
		{
			itemIndex,
			description: `Register the template's URL button as ${split.expectedPrefix}{{1}} and leave Button URL Prefix empty, or enter the start the link has.`,
		},
	);
}

function templateRequest(
	input: SendAndWaitInput,
	question: TemplateQuestion,
	parameters: ItemParameters,
	itemIndex: number,
) {
	const links = answerLinks(parameters.context, input.withDecline);
	const buttons: Record<string, string> = {
		[question.linkButton]: suffixOf(links.approve, question, parameters, itemIndex),
	};
	if (links.decline)
		buttons[question.declineLinkButton] = suffixOf(links.decline, question, parameters, itemIndex);
	const components = { ...question.components, buttons };
	return {
		to: input.to,
		type: 'template',
		template_name: question.templateName,
		components: JSON.stringify(components),
	};
}

export function prepare(parameters: ItemParameters, itemIndex: number): PreparedItem {
	const parsed = sendAndWaitSchema(Date.now()).safeParse(readInput(parameters, itemIndex));
	if (!parsed.success) {
		throw issueToNodeError(
			parameters.context.getNode(),
			parsed.error.issues,
			itemIndex,
			sendAndWaitFieldGuide,
		);
	}
	const input = parsed.data;
	const { question } = input;
	const labels = answerLabels(input, parameters, itemIndex);
	const fields =
		question.type === 'session'
			? sessionRequest(input, question.message, labels.links, parameters, itemIndex)
			: templateRequest(input, question, parameters, itemIndex);
	return {
		request: { path: '/v1/whatsapp/send', fields },
		wait: {
			to: input.to,
			waitTill: input.waitTill,
			answerPage: answerPageFor(input, labels, parameters, itemIndex),
		},
	};
}
