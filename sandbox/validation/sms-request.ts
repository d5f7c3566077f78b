import { ApiError } from '../http/api-error';
import type { TemplateRegistry } from '../templates';
import {
	absoluteHttpUrl,
	checkVariableValues,
	describeKeyDifference,
	objectField,
	recipient,
	rejectUnknownFields,
	requiredString,
} from './field-readers';

const SMS_FIELDS = ['to', 'entity_id', 'template_id', 'content', 'callback_url'] as const;

export interface ValidSmsRequest {
	to: string;
	callbackUrl: string | null;
}

export function validateSmsRequest(
	fields: Record<string, unknown>,
	templates: TemplateRegistry,
): ValidSmsRequest {
	rejectUnknownFields(fields, SMS_FIELDS, 'an SMS send');
	const to = recipient(fields);
	const entityId = requiredString(
		fields,
		'entity_id',
		'Give your registered DLT principal entity ID.',
	);
	const templateId = requiredString(
		fields,
		'template_id',
		'Give your approved DLT content template ID.',
	);
	const contentHint = 'Send a JSON-encoded map of the template variables, e.g. {"otp":"123456"}.';
	const content = objectField(fields, 'content', contentHint);
	if (content === null)
		throw new ApiError(
			400,
			'missing_field',
			`The field 'content' is required. ${contentHint}`,
			'content',
		);
	const callbackUrl = absoluteHttpUrl(fields, 'callback_url');

	const template = templates.dltTemplate(entityId, templateId);
	const difference = describeKeyDifference(template.variables, Object.keys(content));
	if (difference !== null) {
		throw new ApiError(
			422,
			'template_mismatch',
			`The content does not match DLT template ${templateId} (${template.name}), which declares ${template.variables.join(', ')}: ${difference}.`,
			'content',
		);
	}
	checkVariableValues(content, 'content');
	return { to, callbackUrl };
}
