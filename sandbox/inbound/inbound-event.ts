import { newEventId, newMessageId } from '../ids';
import type { MessageStore } from '../messages/message-store';
import type { TemplateRegistry } from '../templates';
import type { InboundEvent, InboundSimulation, MessageRecord } from '../types';

export const DEFAULT_INBOUND_TEXT = 'Hi';

const E164_PATTERN = /^\+[1-9]\d{6,14}$/;

export interface InboundSources {
	businessNumber: string;
	messages: MessageStore;
	templates: TemplateRegistry;
	nowMs: number;
}

/** The signed event a provider sends when a WhatsApp user writes to the business number or presses a button. */
export function inboundEvent(sources: InboundSources, input: unknown): InboundEvent {
	const simulation = checkedSimulation(typeof input === 'string' ? { from: input } : input);
	const event: InboundEvent = {
		event_id: newEventId(sources.nowMs),
		type: 'message.inbound',
		message_id: newMessageId(sources.nowMs),
		channel: 'whatsapp',
		from: '',
		to: sources.businessNumber,
		timestamp: new Date(sources.nowMs).toISOString(),
		message_type: 'text',
	};
	if (simulation.button) {
		const pressed = buttonPress(sources, simulation.button, simulation.from);
		return {
			...event,
			from: pressed.from,
			message_type: 'button',
			button: pressed.button,
			context: { message_id: pressed.messageId },
		};
	}
	const from = checkedNumber(simulation.from);
	const text = { ...event, from, text: simulation.text ?? DEFAULT_INBOUND_TEXT };
	if (simulation.replyTo === undefined) return text;
	const repliedTo = sentMessage(sources.messages, simulation.replyTo, 'replyTo');
	if (repliedTo.to !== from)
		throw new Error(
			`'replyTo' message ${repliedTo.id} was sent to ${repliedTo.to}, not to ${from}`,
		);
	return { ...text, context: { message_id: repliedTo.id } };
}

function checkedSimulation(input: unknown): InboundSimulation {
	if (input === null || typeof input !== 'object' || Array.isArray(input))
		throw new Error('An inbound message is a JSON object');
	const simulation = input as Record<string, unknown>;
	for (const name of ['from', 'text', 'replyTo']) {
		if (simulation[name] !== undefined && typeof simulation[name] !== 'string')
			throw new Error(`'${name}' must be a string`);
	}
	if (simulation.button !== undefined && simulation.text !== undefined) {
		throw new Error("Give either 'text' or 'button': a button press carries the button's own text");
	}
	if (simulation.button !== undefined && simulation.replyTo !== undefined) {
		throw new Error("A button press replies to its template message already; leave 'replyTo' out");
	}
	if (simulation.text !== undefined && (simulation.text as string).trim() === '')
		throw new Error("'text' must not be empty");
	return simulation as InboundSimulation;
}

function checkedNumber(from: string | undefined): string {
	if (from === undefined || from.trim() === '')
		throw new Error("'from' is required: the E.164 number that writes, e.g. +919812345678");
	if (!E164_PATTERN.test(from))
		throw new Error(`'from' "${from}" is not an E.164 number such as +919812345678`);
	return from;
}

function sentMessage(messages: MessageStore, id: unknown, field: string): MessageRecord {
	if (typeof id !== 'string' || id.trim() === '')
		throw new Error(`'${field}' must be the message_id of a message the sandbox accepted`);
	const message = messages.find(id);
	if (!message) throw new Error(`'${field}' ${id} is not a message the sandbox accepted`);
	return message;
}

function buttonPress(sources: InboundSources, button: unknown, from: string | undefined) {
	if (button === null || typeof button !== 'object')
		throw new Error("'button' must be { messageId, position }");
	const { messageId, position, text } = button as Record<string, unknown>;
	const message = sentMessage(sources.messages, messageId, 'button.messageId');
	if (message.channel !== 'whatsapp' || message.fields.type !== 'template') {
		throw new Error(
			`'button.messageId' ${message.id} is not a WhatsApp template message: only templates carry quick-reply buttons`,
		);
	}
	if (from !== undefined && from !== message.to)
		throw new Error(`'from' ${from} is not the recipient of ${message.id} (${message.to})`);
	if (typeof position !== 'number' || !Number.isInteger(position) || position < 1) {
		throw new Error("'button.position' must be the button's position, 1 or more");
	}
	const payload = buttonPayloads(message)[String(position)];
	if (payload === undefined)
		throw new Error(
			`Template message ${message.id} carried no payload for button ${position} in components.buttons`,
		);
	if (text !== undefined && typeof text !== 'string')
		throw new Error("'button.text' must be a string");
	const label =
		text ??
		sources.templates.whatsappTemplate(String(message.fields.template_name)).buttonTexts?.[
			position - 1
		];
	return {
		from: message.to,
		messageId: message.id,
		button: { payload: String(payload), text: label ?? `Button ${position}` },
	};
}

/** The payloads as the template send carried them: components arrive as JSON-encoded text or, in JSON bodies, nested. */
function buttonPayloads(message: MessageRecord): Record<string, unknown> {
	let components = message.fields.components;
	if (typeof components === 'string') {
		try {
			components = JSON.parse(components);
		} catch {
			return {};
		}
	}
	const buttons = (components as { buttons?: unknown } | undefined)?.buttons;
	return buttons !== null && typeof buttons === 'object'
		? (buttons as Record<string, unknown>)
		: {};
}
