import { z } from 'zod/v3';

import { waitTimeLimit } from './waitTime';
import { addFieldIssue, isBlank, optionalUrl, requiredText } from './fieldSchemas';
import type { FieldGuide } from './issueToNodeError';
import { defaultCountryCode, normaliseRecipient } from './recipientSchemas';
import {
	componentsFromJson,
	componentsFromRows,
	type TemplateComponents,
} from './templateComponents';
import { whatsappFieldGuide } from './whatsappSendSchema';

export const sendAndWaitFieldGuide: FieldGuide = {
	...whatsappFieldGuide,
	message: {
		label: 'Message',
		fix: 'Enter the question, e.g. Order 1234 is over the limit. Approve it?',
	},
	templateName: {
		label: 'Template Name',
		fix: 'Enter the approved template with the URL button(s), e.g. approval_request.',
	},
	responseType: { label: 'Response Type', fix: 'Choose Approval or Free Text.' },
	approvalType: {
		label: 'Approval Options > Type of Approval',
		fix: 'Choose Approve Only or Approve and Decline.',
	},
	linkButton: {
		label: 'Link Button Position',
		fix: 'Enter the position (1 to 10) of the URL button for the link.',
	},
	declineLinkButton: {
		label: 'Decline Link Button Position',
		fix: 'Enter another position (1 to 10) than the approve link.',
	},
	limitWaitTime: {
		label: 'Options > Limit Wait Time',
		fix: 'Correct the limit or remove the option to wait without one.',
	},
	buttonUrlPrefix: {
		label: 'Options > Button URL Prefix',
		fix: "Enter the start of the template's button URL before {{1}}, e.g. https://n8n.example.com/webhook-waiting/.",
	},
};

export interface TemplateQuestion {
	type: 'template';
	templateName: string;
	components: TemplateComponents;
	linkButton: number;
	declineLinkButton: number;
	buttonUrlPrefix: string;
}

export interface SendAndWaitInput {
	to: string;
	responseType: 'approval' | 'freeText';
	/** Approve and Decline: two links. */
	withDecline: boolean;
	waitTill: Date;
	question: { type: 'session'; message: string } | TemplateQuestion;
}

const position = z.coerce
	.number({ errorMap: () => ({ message: 'must be a whole number from 1 to 10' }) })
	.int('must be a whole number from 1 to 10')
	.min(1, 'must be a whole number from 1 to 10')
	.max(10, 'must be a whole number from 1 to 10');

function rawInput(now: number) {
	return z.object({
		to: z.unknown(),
		messageType: z.enum(['template', 'session'], {
			errorMap: () => ({ message: 'must be "template" or "session"' }),
		}),
		message: z.unknown().optional(),
		templateName: z.unknown().optional(),
		componentsInputMode: z.enum(['fields', 'json']).default('fields'),
		components: z.unknown().optional(),
		componentsJson: z.unknown().optional(),
		responseType: z.enum(['approval', 'freeText'], {
			errorMap: () => ({ message: 'must be "approval" or "freeText"' }),
		}),
		approvalType: z.enum(['single', 'double'], {
			errorMap: () => ({ message: 'must be "single" or "double"' }),
		}),
		linkButton: position.default(1),
		declineLinkButton: position.default(2),
		limitWaitTime: waitTimeLimit(now),
		buttonUrlPrefix: optionalUrl(sendAndWaitFieldGuide.buttonUrlPrefix.fix),
		defaultCountryCode,
	});
}

type RawInput = z.infer<ReturnType<typeof rawInput>>;

function templateQuestion(
	input: RawInput,
	withDecline: boolean,
	ctx: z.RefinementCtx,
): TemplateQuestion {
	const templateName = requiredText(512, 'approval_request').safeParse(input.templateName);
	if (!templateName.success) {
		for (const issue of templateName.error.issues)
			ctx.addIssue({ ...issue, path: ['templateName'] });
		return z.NEVER;
	}
	const json = input.componentsInputMode === 'json';
	const components = json
		? componentsFromJson(input.componentsJson, ctx)
		: componentsFromRows(input.components, ctx);
	if (components.buttons) {
		addFieldIssue(
			ctx,
			'set button values, but the buttons carry the answer links',
			'Remove the button values; set Link Button Position (and Decline Link Button Position) instead.',
			[json ? 'componentsJson' : 'components'],
		);
	}
	if (withDecline && input.linkButton === input.declineLinkButton) {
		addFieldIssue(
			ctx,
			`is ${input.declineLinkButton}, the same button as the approve link`,
			sendAndWaitFieldGuide.declineLinkButton.fix,
			['declineLinkButton'],
		);
	}
	return {
		type: 'template',
		templateName: templateName.data,
		components,
		linkButton: input.linkButton,
		declineLinkButton: input.declineLinkButton,
		buttonUrlPrefix: input.buttonUrlPrefix ?? '',
	};
}

/** `now` fixes when an interval limit ends, so every item of a run counts from the same moment. */
export function sendAndWaitSchema(now: number) {
	return rawInput(now).transform((input, ctx): SendAndWaitInput => {
		const to = normaliseRecipient(input.to, input.defaultCountryCode, ctx);
		const withDecline = input.responseType === 'approval' && input.approvalType === 'double';
		let question: SendAndWaitInput['question'];
		if (input.messageType === 'template') question = templateQuestion(input, withDecline, ctx);
		else if (typeof input.message !== 'string' || isBlank(input.message)) {
			addFieldIssue(ctx, 'is empty', sendAndWaitFieldGuide.message.fix, ['message']);
			return z.NEVER;
		} else question = { type: 'session', message: input.message };
		return {
			to,
			responseType: input.responseType,
			withDecline,
			waitTill: input.limitWaitTime,
			question,
		};
	});
}
