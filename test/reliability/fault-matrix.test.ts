import type { IDataObject, INode, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { closedPortUrl } from '../../sandbox';
import type { FaultAction, FaultBodyKind } from '../../sandbox';
import { runWorkflow } from '../helpers/runWorkflow';
import type { WorkflowRunResult } from '../helpers/runWorkflow';
import { useSandbox } from '../helpers/sandboxForTests';
import {
	messagingWorkflow,
	smsFromItem,
	smsItem,
	whatsappTemplateFromItem,
	whatsappTemplateItem,
} from './support/messagingWorkflow';
import { containsSecret, createTally, reportTallyAfterAll } from './support/reliabilityTally';

/**
 * How the node must treat a failure:
 * - final: refused before anything was accepted; never retried, with or without a key;
 * - rate_limited: retried whatever the key, then fails after Max Tries per Message;
 * - maybe_processed: may have been accepted; retried only with an Idempotency Key;
 * - not_sent: nothing reached the provider; retried, nothing sent;
 * - invalid_acknowledgement: a 2xx that is not an acknowledgement; the provider holds the message.
 */
type FailureClass =
	| 'final'
	| 'rate_limited'
	| 'maybe_processed'
	| 'not_sent'
	| 'invalid_acknowledgement';

interface FaultCase {
	name: string;
	/** null: the whole Base URL is a closed port. */
	action: FaultAction | null;
	failureClass: FailureClass;
	/** The sandbox holds the faulted message although the node saw a failure. */
	acceptedUnderFault: boolean;
	/** The node's error message for the faulted item. */
	message: string;
	/** The provider's own words as kept in the error details; absent when it gave none. */
	providerMessage?: string;
	/** The provider's words are the very body the sandbox answered with (it differs per run and channel), in this shape. */
	answerBody?: RegExp;
	/** Parts of the description: what to do. */
	whatToDo: string[];
	/** What to do instead when the item carried an Idempotency Key and was retried with it. */
	whatToDoWithKey?: string[];
	/** Parts the description must not say, e.g. advice that does not fit this failure. */
	neverSays?: string[];
	httpCode?: string;
	timeoutMs?: number;
}

const MAYBE_SENT = 'The message may have been accepted, so it was not sent again';
const SET_KEY = 'set Options > Idempotency Key so the node can retry safely';
const SAME_KEY = 'run the node again with the same Idempotency Key and it is sent at most once';
const MAX_TRIES = 2;

const BODY_KINDS: Array<Exclude<FaultBodyKind, 'not-json' | 'ack-without-id'>> = [
	'json',
	'text',
	'html',
	'empty',
];

const STATUS_OUTCOMES: Record<
	number,
	{
		failureClass: FailureClass;
		summary: string;
		whatToDo: string[];
		whatToDoWithoutReason?: string[];
	}
> = {
	400: {
		failureClass: 'final',
		summary: 'The Messaging API rejected the message (400)',
		whatToDo: ['Fix the field named in the message and run the node again.'],
		whatToDoWithoutReason: [
			"Fix this item's fields (the provider gave no reason) and run the node again.",
		],
	},
	401: {
		failureClass: 'final',
		summary: 'The Messaging API rejected the API key (401)',
		whatToDo: ['Check the API Key in the Messaging API credential'],
	},
	403: {
		failureClass: 'final',
		summary: 'The Messaging API rejected the API key (403)',
		whatToDo: ['Check the API Key in the Messaging API credential'],
	},
	404: {
		failureClass: 'final',
		summary: 'The Messaging API did not find what was asked for (404)',
		whatToDo: [
			"Check the credential's Base URL",
			'DLT Template ID or WhatsApp Template Name exists',
		],
	},
	409: {
		failureClass: 'final',
		summary: 'The Messaging API refused the message as a conflict with an earlier request (409)',
		whatToDo: [
			'It was not sent again',
			'Check with your provider before sending it again',
			'its own Idempotency Key',
		],
	},
	422: {
		failureClass: 'final',
		summary: 'The Messaging API rejected the message (422)',
		whatToDo: [
			'Fix the field named in the message',
			'template variables must match the registered template',
		],
		whatToDoWithoutReason: [
			"Fix this item's fields (the provider gave no reason)",
			'template variables must match the registered template',
		],
	},
	429: {
		failureClass: 'rate_limited',
		summary: `The Messaging API is limiting the send rate (429) after ${MAX_TRIES} tries`,
		whatToDo: ['Slow down', 'Max Messages per Second', 'raise Options > Max Tries per Message'],
	},
	500: {
		failureClass: 'maybe_processed',
		summary: 'The Messaging API failed on its side (500)',
		whatToDo: ['provider-side problem', MAYBE_SENT, SET_KEY],
	},
	502: {
		failureClass: 'maybe_processed',
		summary: 'The Messaging API failed on its side (502)',
		whatToDo: ['provider-side problem', MAYBE_SENT, SET_KEY],
	},
	503: {
		failureClass: 'maybe_processed',
		summary: 'The Messaging API failed on its side (503)',
		whatToDo: ['provider-side problem', MAYBE_SENT, SET_KEY],
	},
};

const PROVIDER_SIDE_WITH_KEY = ['provider-side problem', SAME_KEY];

/** A provider body of each kind, with words of its own so the test can see they are kept. */
function providerBody(
	status: number,
	kind: FaultBodyKind,
): { body?: string; providerMessage?: string } {
	const words = `Upstream ${status}: request ref R-${status}-${kind} was not processed`;
	switch (kind) {
		case 'json':
			return {
				body: JSON.stringify({ error: { code: `upstream_${status}`, message: words } }),
				providerMessage: words,
			};
		case 'text':
			return { body: words, providerMessage: words };
		case 'html':
			return {
				body: `<html><head><title>${status}</title><style>h1 { color: red }</style></head><body><h1>Upstream ${status}</h1><p>request ref R-${status}-html</p></body></html>`,
				providerMessage: `${status} Upstream ${status} request ref R-${status}-html`,
			};
		default:
			return {};
	}
}

function statusCases(): FaultCase[] {
	return Object.entries(STATUS_OUTCOMES).flatMap(([statusText, outcome]) =>
		BODY_KINDS.map((bodyKind): FaultCase => {
			const status = Number(statusText);
			const { body, providerMessage } = providerBody(status, bodyKind);
			const retryAfter = status === 429 ? { headers: { 'Retry-After': '0' } } : {};
			return {
				name: `${status} with a ${bodyKind} body`,
				action: { status, bodyKind, ...(body === undefined ? {} : { body }), ...retryAfter },
				failureClass: outcome.failureClass,
				acceptedUnderFault: false,
				message: providerMessage ? `${outcome.summary}: ${providerMessage}` : outcome.summary,
				providerMessage,
				whatToDo: providerMessage
					? outcome.whatToDo
					: (outcome.whatToDoWithoutReason ?? outcome.whatToDo),
				...(outcome.failureClass === 'maybe_processed'
					? { whatToDoWithKey: PROVIDER_SIDE_WITH_KEY }
					: {}),
				neverSays: providerMessage ? [] : ['named in the message'],
				httpCode: statusText,
			};
		}),
	);
}

const INVALID_ACK = 'without a valid acknowledgement (message_id, status, channel)';
const CHECK_BEFORE_RESENDING = [MAYBE_SENT, 'check with your provider before sending it again'];

const faultCases: FaultCase[] = [
	...statusCases(),
	{
		name: '200 whose body is cut off (not JSON)',
		action: { status: 200, bodyKind: 'not-json' },
		failureClass: 'invalid_acknowledgement',
		acceptedUnderFault: true,
		message: `The Messaging API answered 200 ${INVALID_ACK}`,
		answerBody: /^\{"message_id":"msg_[0-9A-Z]+$/,
		whatToDo: CHECK_BEFORE_RESENDING,
		httpCode: '200',
	},
	{
		name: '200 without a message id',
		action: { status: 200, bodyKind: 'ack-without-id' },
		failureClass: 'invalid_acknowledgement',
		acceptedUnderFault: true,
		message: `The Messaging API answered 200 ${INVALID_ACK}`,
		answerBody: /^\{"status":"(queued","channel":"sms|sent","channel":"whatsapp)"\}$/,
		whatToDo: CHECK_BEFORE_RESENDING,
		httpCode: '200',
	},
	{
		name: '200 with an HTML page',
		action: {
			status: 200,
			bodyKind: 'html',
			body: '<html><body><h1>Welcome to nginx!</h1></body></html>',
		},
		failureClass: 'invalid_acknowledgement',
		acceptedUnderFault: true,
		message: `The Messaging API answered 200 ${INVALID_ACK}: Welcome to nginx!`,
		providerMessage: 'Welcome to nginx!',
		whatToDo: [
			"Check that the credential's Base URL points at the Messaging API",
			...CHECK_BEFORE_RESENDING,
		],
		httpCode: '200',
	},
	{
		name: '201 with an empty body',
		action: { status: 201, bodyKind: 'empty' },
		failureClass: 'invalid_acknowledgement',
		acceptedUnderFault: true,
		message: `The Messaging API answered 201 ${INVALID_ACK}: (empty body)`,
		providerMessage: '(empty body)',
		whatToDo: CHECK_BEFORE_RESENDING,
		httpCode: '201',
	},
	{
		name: 'an answer later than the Timeout option',
		action: { delayMs: 3000 },
		timeoutMs: 1000,
		failureClass: 'maybe_processed',
		acceptedUnderFault: true,
		message: 'The Messaging API did not answer within 1000 ms',
		whatToDo: ['Raise Options > Timeout', MAYBE_SENT, SET_KEY],
		whatToDoWithKey: ['Raise Options > Timeout', SAME_KEY],
	},
	{
		name: 'a connection reset before the body is read',
		action: { reset: 'before-body' },
		failureClass: 'maybe_processed',
		acceptedUnderFault: false,
		message: 'The connection to the Messaging API broke before it answered',
		whatToDo: ['Try again later', MAYBE_SENT, SET_KEY],
		whatToDoWithKey: ['Try again later', SAME_KEY],
	},
	{
		name: 'a connection reset after the message was accepted',
		action: { reset: 'after-body' },
		failureClass: 'maybe_processed',
		acceptedUnderFault: true,
		message: 'The connection to the Messaging API broke before it answered',
		whatToDo: ['Try again later', MAYBE_SENT, SET_KEY],
		whatToDoWithKey: ['Try again later', SAME_KEY],
	},
	{
		name: 'a closed port',
		action: null,
		failureClass: 'not_sent',
		acceptedUnderFault: false,
		message: 'Could not connect to the Messaging API',
		whatToDo: ["Check the credential's Base URL", 'Nothing was sent'],
		neverSays: ['may have been accepted'],
	},
];

/**
 * - continueOnFail: the faulted item becomes an error item in its own slot, the others are sent once;
 * - errorOutput: the faulted item leaves by the error output, paired to its input, the others by the success output;
 * - stop: the run fails naming the item, the provider's words kept in the error details;
 * - key, fault once: with an Idempotency Key a failure that may be retried is, and the item is sent once;
 * - key, fault on every try: the item fails after its tries and was still accepted at most once.
 */
type Mode =
	| 'continueOnFail'
	| 'errorOutput'
	| 'stop'
	| 'key, fault once'
	| 'key, fault on every try';

const sandbox = useSandbox();
const tally = createTally();
reportTallyAfterAll('fault matrix', tally);

function modesFor(fault: FaultCase): Mode[] {
	const modes: Mode[] = ['continueOnFail', 'errorOutput', 'stop'];
	if (fault.action !== null) modes.push('key, fault once');
	if (fault.failureClass === 'maybe_processed' || fault.failureClass === 'not_sent')
		modes.push('key, fault on every try');
	return modes;
}

/** A reset before the body is read can only be matched by path, so that case sends one at a time and faults item 0. */
function isBeforeBodyReset(fault: FaultCase): boolean {
	return fault.action !== null && 'reset' in fault.action && fault.action.reset === 'before-body';
}

function phoneFor(caseNumber: number, modeNumber: number, itemIndex: number): string {
	return `+9196${String(caseNumber).padStart(2, '0')}${modeNumber}000${itemIndex}`;
}

function withKey(mode: Mode): boolean {
	return mode.startsWith('key');
}

/** Whether the faulted item ends with its acknowledgement: the key let the node retry past a one-off fault. */
function recovers(fault: FaultCase, mode: Mode): boolean {
	if (mode !== 'key, fault once') return false;
	return fault.failureClass === 'maybe_processed' || fault.failureClass === 'rate_limited';
}

function expectedAccepted(fault: FaultCase, mode: Mode): number {
	if (recovers(fault, mode)) return 1;
	return fault.acceptedUnderFault ? 1 : 0;
}

/** Both channels share one transport; alternating them per case checks that neither is treated differently. */
function channelFor(caseNumber: number) {
	return caseNumber % 2 === 0
		? { parameters: smsFromItem, item: smsItem, path: '/v1/sms/send' }
		: {
				parameters: whatsappTemplateFromItem,
				item: whatsappTemplateItem,
				path: '/v1/whatsapp/send',
			};
}

async function runCase(
	fault: FaultCase,
	caseNumber: number,
	mode: Mode,
): Promise<{
	result: WorkflowRunResult;
	items: Array<{ json: IDataObject }>;
	phones: string[];
	faulted: number[];
}> {
	const modeNumber = modesFor(fault).indexOf(mode);
	const channel = channelFor(caseNumber);
	const phones = [0, 1, 2].map((itemIndex) => phoneFor(caseNumber, modeNumber, itemIndex));
	const beforeBody = isBeforeBodyReset(fault);
	const faulted = fault.action === null ? [0, 1, 2] : [beforeBody ? 0 : 1];
	const faultedPhone = phones[faulted[0]];
	const triesOfFaultedItem =
		fault.failureClass === 'maybe_processed' && !withKey(mode) ? 1 : MAX_TRIES;
	const times = mode === 'key, fault once' ? 1 : beforeBody ? triesOfFaultedItem : undefined;
	if (fault.action !== null) {
		sandbox().addFault({
			match: {
				...(beforeBody ? { path: channel.path } : { to: faultedPhone }),
				...(times ? { times } : {}),
			},
			action: fault.action,
		});
	}

	const options: INodeParameters = {
		...(channel.parameters.options as INodeParameters),
		maxTries429: MAX_TRIES,
		// The stop runs send JSON bodies, the others form bodies: a fault must read the same either way.
		...(mode === 'stop' ? { bodyEncoding: 'json' } : {}),
		...(beforeBody ? { maxConcurrency: 1 } : {}),
		...(fault.timeoutMs ? { timeout: fault.timeoutMs } : {}),
		...(withKey(mode) ? { idempotencyKey: '=reliability-{{ $json.to }}' } : {}),
	};
	const items = phones.map((phone, itemIndex) => ({
		json: channel.item(phone, `${caseNumber}-${modeNumber}-${itemIndex}`),
	}));
	const result = await runWorkflow({
		workflow: messagingWorkflow({ ...channel.parameters, options }),
		credentials: {
			baseUrl: fault.action === null ? await closedPortUrl() : sandbox().url,
			apiKey: sandbox().apiKey,
		},
		items,
		onError: ON_ERROR[mode],
	});
	return { result, items, phones, faulted };
}

const ON_ERROR: Record<Mode, INode['onError']> = {
	continueOnFail: 'continueRegularOutput',
	errorOutput: 'continueErrorOutput',
	stop: 'stopWorkflow',
	'key, fault once': 'continueRegularOutput',
	'key, fault on every try': 'continueRegularOutput',
};

/** The item that came out for an input item, by its pairing, from whichever output it left by. */
function outputFor(result: WorkflowRunResult, itemIndex: number): INodeExecutionData | undefined {
	const left = [...(result.outputs.Messaging ?? []), ...(result.errorOutputs.Messaging ?? [])];
	return left.find((item) => (item.pairedItem as { item: number } | undefined)?.item === itemIndex);
}

function acceptedFor(phone: string) {
	return sandbox()
		.messages()
		.filter((message) => message.to === phone);
}

/** Counts into the tally before any assertion can stop the case, so the summary reflects what happened. */
function countOutcome(result: WorkflowRunResult, phones: string[], continued: boolean): void {
	tally.cases++;
	if (containsSecret(JSON.stringify(result.run), sandbox().apiKey)) tally.secretsLeaked++;
	phones.forEach((phone, itemIndex) => {
		const accepted = acceptedFor(phone);
		if (accepted.length > 1) tally.messagesDuplicated++;
		if (!continued) return;
		const output = outputFor(result, itemIndex);
		if (!output) tally.messagesLost++;
		else if (
			output.json.message_id !== undefined &&
			!(accepted.length === 1 && accepted[0].id === output.json.message_id)
		)
			tally.messagesLost++;
	});
}

function expectExplained(description: unknown, fault: FaultCase, mode: Mode): void {
	const keyed = withKey(mode) && fault.whatToDoWithKey !== undefined;
	for (const part of keyed ? fault.whatToDoWithKey! : fault.whatToDo)
		expect(description).toContain(part);
	for (const part of [...(fault.neverSays ?? []), ...(keyed ? [SET_KEY, MAYBE_SENT] : [])])
		expect(description).not.toContain(part);
}

/** The message and provider words the faulted item must end with; a cut-off body is only known once answered. */
function expectedWords(
	fault: FaultCase,
	faultedPhone: string,
): { message: string; providerMessage?: string } {
	if (!fault.answerBody) return { message: fault.message, providerMessage: fault.providerMessage };
	const answered = sandbox()
		.requests()
		.find((request) => request.fields.to === faultedPhone);
	const body = answered?.response.body;
	const providerMessage = typeof body === 'string' ? body : JSON.stringify(body);
	expect(providerMessage).toMatch(fault.answerBody);
	return { message: `${fault.message}: ${providerMessage}`, providerMessage };
}

const table = faultCases.flatMap((fault, caseNumber) =>
	modesFor(fault).map((mode) => ({ ...fault, caseNumber, mode })),
);

describe('provider faults: every item fails clearly, in its own slot, and is never sent twice', () => {
	test('the matrix covers every fault kind the sandbox can inject', () => {
		const kinds = new Set(
			faultCases.map((fault) =>
				fault.action === null
					? 'closed-port'
					: 'reset' in fault.action
						? `reset:${fault.action.reset}`
						: 'delayMs' in fault.action
							? 'delay'
							: `status:${fault.action.bodyKind}`,
			),
		);
		expect([...kinds].sort()).toEqual(
			[
				'closed-port',
				'delay',
				'reset:after-body',
				'reset:before-body',
				'status:ack-without-id',
				'status:empty',
				'status:html',
				'status:json',
				'status:not-json',
				'status:text',
			].sort(),
		);
		expect(new Set(faultCases.map((fault) => fault.httpCode).filter(Boolean))).toEqual(
			new Set(['200', '201', '400', '401', '403', '404', '409', '422', '429', '500', '502', '503']),
		);
	});

	test.each(table)('$name — $mode', async (row) => {
		const fault: FaultCase = row;
		const { mode, caseNumber } = row;
		const { result, items, phones, faulted } = await runCase(fault, caseNumber, mode);
		countOutcome(result, phones, mode !== 'stop');

		for (const itemIndex of faulted)
			expect(acceptedFor(phones[itemIndex])).toHaveLength(expectedAccepted(fault, mode));
		for (const phone of phones) expect(acceptedFor(phone).length).toBeLessThanOrEqual(1);
		if (withKey(mode) && fault.action !== null) {
			const keys = sandbox()
				.requests()
				.map((request) => request.headers['idempotency-key']);
			expect(keys.length).toBeGreaterThan(0);
			expect(keys.every((key) => phones.some((phone) => key === `reliability-${phone}`))).toBe(
				true,
			);
		}
		if (recovers(fault, mode)) {
			const tries = sandbox()
				.requests()
				.filter(
					(request) => request.fields.to === phones[faulted[0]] || request.response.status === 0,
				);
			expect(tries).toHaveLength(2);
			// A reset before the body is read leaves no body to compare, only the key.
			if (!isBeforeBodyReset(fault)) expect(tries[1].rawBody).toBe(tries[0].rawBody);
			expect(tries.map((request) => request.headers['idempotency-key'])).toEqual([
				`reliability-${phones[faulted[0]]}`,
				`reliability-${phones[faulted[0]]}`,
			]);
		}

		const { message, providerMessage } = expectedWords(fault, phones[faulted[0]]);
		if (mode === 'stop') {
			const error = result.error as unknown as {
				message: string;
				description?: string;
				httpCode?: string | null;
				context?: IDataObject;
				errorResponse?: IDataObject;
			};
			expect(error.message).toBe(message);
			expectExplained(error.description, fault, mode);
			expect(faulted).toContain(error.context?.itemIndex);
			expect(error.httpCode ?? undefined).toBe(fault.httpCode);
			expect(error.errorResponse?.providerMessage).toBe(providerMessage);
			expect(result.outputs.Messaging).toBeUndefined();
			return;
		}

		expect(result.error).toBeUndefined();
		if (mode === 'errorOutput') {
			// Without a key nothing is retried past its fault, so every faulted item fails.
			const failed = faulted;
			const succeeded = phones
				.map((_phone, itemIndex) => itemIndex)
				.filter((itemIndex) => !failed.includes(itemIndex));
			expect((result.outputs.Messaging ?? []).map((item) => item.pairedItem)).toEqual(
				succeeded.map((item) => ({ item })),
			);
			expect((result.errorOutputs.Messaging ?? []).map((item) => item.pairedItem)).toEqual(
				failed.map((item) => ({ item })),
			);
			for (const itemIndex of failed) {
				const errorItem = outputFor(result, itemIndex)!;
				expect(errorItem.json).toEqual({
					...items[itemIndex].json,
					error: message,
					details: {
						description: expect.any(String),
						...(fault.httpCode ? { httpCode: fault.httpCode } : {}),
					},
				});
				expectExplained((errorItem.json.details as IDataObject).description, fault, mode);
			}
			for (const itemIndex of succeeded) {
				const [accepted] = acceptedFor(phones[itemIndex]);
				expect(outputFor(result, itemIndex)?.json).toEqual(accepted.acknowledgement);
			}
			return;
		}
		const output = result.outputs.Messaging;
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		phones.forEach((phone, itemIndex) => {
			if (faulted.includes(itemIndex) && !recovers(fault, mode)) {
				expect(output[itemIndex].json).toEqual({
					error: message,
					description: expect.any(String),
					...(fault.httpCode ? { httpCode: fault.httpCode } : {}),
				});
				expectExplained(output[itemIndex].json.description, fault, mode);
				return;
			}
			const [accepted] = acceptedFor(phone);
			expect(acceptedFor(phone)).toHaveLength(1);
			expect(output[itemIndex].json).toEqual(accepted.acknowledgement);
		});
	});
});
