import { ApiError, invalidField } from '../http/api-error';
import type { SessionWindows } from '../session-windows';
import type { TemplateRegistry } from '../templates';
import type { WhatsAppTemplate } from '../types';
import {
	checkVariableValues,
	describeKeyDifference,
	describeType,
	objectField,
	recipient,
	rejectUnknownFields,
	requiredString,
} from './field-readers';

const TEMPLATE_FIELDS = ['to', 'type', 'template_name', 'components'] as const;
const SESSION_FIELDS = ['to', 'type', 'text'] as const;
const COMPONENT_SECTIONS = ['header', 'body', 'buttons'] as const;
export const SESSION_TEXT_MAX_LENGTH = 4096;

export interface ValidWhatsAppRequest {
	to: string;
}

export function validateWhatsAppRequest(
	fields: Record<string, unknown>,
	templates: TemplateRegistry,
	sessions: SessionWindows,
): ValidWhatsAppRequest {
	const type = requiredString(fields, 'type', "Use 'template' or 'session'.");
	if (type === 'template') return validateTemplateMessage(fields, templates);
	if (type === 'session') return validateSessionMessage(fields, sessions);
	throw invalidField('type', `Unknown message type '${type}'. Use 'template' or 'session'.`);
}

function validateTemplateMessage(
	fields: Record<string, unknown>,
	templates: TemplateRegistry,
): ValidWhatsAppRequest {
	rejectUnknownFields(fields, TEMPLATE_FIELDS, 'a WhatsApp template message');
	const to = recipient(fields);
	const name = requiredString(
		fields,
		'template_name',
		'Give the name of your approved WhatsApp template.',
	);
	const components = objectField(
		fields,
		'components',
		'Send {"header":{"1":...},"body":{"1":...},"buttons":{"1":...}} as JSON-encoded text.',
	);
	checkComponents(templates.whatsappTemplate(name), components ?? {});
	return { to };
}

function checkComponents(template: WhatsAppTemplate, components: Record<string, unknown>): void {
	for (const section of Object.keys(components)) {
		if (!(COMPONENT_SECTIONS as readonly string[]).includes(section)) {
			throw invalidField(
				'components',
				`Unknown components section '${section}'. Use header, body and buttons.`,
			);
		}
	}
	for (const section of COMPONENT_SECTIONS) {
		const values = components[section] ?? {};
		if (values === null || typeof values !== 'object' || Array.isArray(values)) {
			throw invalidField(
				'components',
				`components.${section} must be an object keyed "1", "2", ..., got ${describeType(values)}.`,
			);
		}
		const declared = Array.from({ length: template[section] }, (_, index) => String(index + 1));
		const difference = describeKeyDifference(declared, Object.keys(values));
		if (difference !== null) {
			throw new ApiError(
				422,
				'template_mismatch',
				`components.${section} does not match template '${template.name}', which takes ${describeCount(declared)} ${section} values: ${difference}.`,
				'components',
			);
		}
		checkVariableValues(values as Record<string, unknown>, 'components', `components.${section}`);
	}
}

function describeCount(declared: string[]): string {
	return declared.length === 0
		? 'no'
		: `${declared.length} (keys ${declared.map((key) => `"${key}"`).join(', ')})`;
}

function validateSessionMessage(
	fields: Record<string, unknown>,
	sessions: SessionWindows,
): ValidWhatsAppRequest {
	rejectUnknownFields(fields, SESSION_FIELDS, 'a WhatsApp session message');
	const to = recipient(fields);
	const text = requiredString(fields, 'text', 'A session message needs a text body.');
	if (text.length > SESSION_TEXT_MAX_LENGTH) {
		throw invalidField(
			'text',
			`The text has ${text.length} characters; the limit is ${SESSION_TEXT_MAX_LENGTH}.`,
		);
	}
	if (!sessions.isOpen(to)) {
		throw new ApiError(
			422,
			'session_window_closed',
			`No open 24-hour session with ${to}: the recipient has not written in the last 24 hours. Send a template message instead.`,
			'to',
		);
	}
	return { to };
}
