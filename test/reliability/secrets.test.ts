import { inspect } from 'node:util';

import { CredentialTestContext } from 'n8n-core';
import { LoggerProxy } from 'n8n-workflow';
import type { ICredentialsDecrypted, INodeParameters } from 'n8n-workflow';

import { testMessagingApiCredential } from '../../nodes/Messaging/methods/testMessagingApiCredential';

import { closedPortUrl, DEFAULT_SEED, startSandbox } from '../../sandbox';
import type { FaultAction, Sandbox } from '../../sandbox';
import { logs as n8nCoreLogs } from '../nodes/MessagingTrigger/support/n8nRuntime';
import {
	deliveryEvent,
	nowSeconds,
	postDelivery,
} from '../nodes/MessagingTrigger/support/signedDelivery';
import { startTriggerHarness } from '../nodes/MessagingTrigger/support/triggerHarness';
import type { TriggerHarness } from '../nodes/MessagingTrigger/support/triggerHarness';
import { runWorkflow } from '../helpers/runWorkflow';
import type { WorkflowRunResult } from '../helpers/runWorkflow';
import {
	messagingWorkflow,
	smsFromItem,
	smsItem,
	whatsappSessionFromItem,
	whatsappSessionItem,
} from './support/messagingWorkflow';
import {
	containsSecret,
	createTally,
	reportTallyAfterAll,
	secretSightings,
} from './support/reliabilityTally';

const API_KEY = 'sk_live_Zq8vN3xReliabilityK3y_7Tw4xP9mLq2';
const WRONG_API_KEY = 'sk_live_Wr0ngKeyM4deUpForTheTest_5Hd8Jc1';
const SIGNING_SECRET = 'whsec_Reliab1lityS1gningS3cret_c4e9';

/** Everything the run wrote anywhere: n8n's logger, n8n-core's logger, the console and the process streams. */
const produced: string[] = [];

function record(...parts: unknown[]): void {
	produced.push(
		parts
			.map((part) =>
				typeof part === 'string' ? part : inspect(part, { depth: 12, showHidden: true }),
			)
			.join(' '),
	);
}

const capturingLogger = {
	error: (message: string, meta?: unknown) => record('error', message, meta),
	warn: (message: string, meta?: unknown) => record('warn', message, meta),
	info: (message: string, meta?: unknown) => record('info', message, meta),
	debug: (message: string, meta?: unknown) => record('debug', message, meta),
};

const streamWrites = {
	stdout: process.stdout.write.bind(process.stdout),
	stderr: process.stderr.write.bind(process.stderr),
};

beforeAll(() => {
	LoggerProxy.init(capturingLogger as unknown as Parameters<typeof LoggerProxy.init>[0]);
	for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
		jest
			.spyOn(console, level)
			.mockImplementation((...parts: unknown[]) => record(`console.${level}`, ...parts));
	}
	for (const name of ['stdout', 'stderr'] as const) {
		jest.spyOn(process[name], 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
			record(`process.${name}`, String(chunk));
			return (streamWrites[name] as (...args: unknown[]) => boolean)(chunk, ...rest);
		}) as typeof process.stdout.write);
	}
});

afterAll(() => {
	jest.restoreAllMocks();
});

/** Every view of a run a user, a log shipper or an error reporter could see. */
function everythingAbout(result: WorkflowRunResult): string {
	const error = result.error as
		| (Error & { description?: unknown; cause?: unknown; context?: unknown })
		| undefined;
	const taskErrors = Object.values(result.run.data.resultData.runData).flatMap((tasks) =>
		tasks.map((task) => task.error),
	);
	return [
		JSON.stringify(result.run),
		inspect(result.run, { depth: 20 }),
		...[error, ...taskErrors]
			.filter(Boolean)
			.flatMap((each) => [
				String(each?.message),
				String(each?.description),
				String(each?.stack),
				JSON.stringify(each),
				JSON.stringify(each?.cause),
				JSON.stringify(each?.context),
				inspect(each, { depth: 12, showHidden: true }),
			]),
	].join('\n');
}

interface FailureThrough {
	name: string;
	action?: FaultAction;
	closedPort?: boolean;
	wrongKey?: boolean;
	parameters?: INodeParameters;
	items?: 'sms' | 'badPhone' | 'closedSession';
	/** What the failure must still say, so the test knows the failure class really happened. */
	says: RegExp;
}

const echo = (words: string) => `${words} Bearer ${API_KEY} (received Authorization header)`;

const failures: FailureThrough[] = [
	{ name: 'bad input', items: 'badPhone', says: /^Item 0: 'To' "12345" has no country code$/ },
	{
		name: 'a key the provider does not know',
		wrongKey: true,
		says: /rejected the API key \(401\)/,
	},
	{
		name: 'a 401 whose text echoes the key',
		action: { status: 401, bodyKind: 'text', body: echo('Invalid API key:') },
		says: /rejected the API key \(401\): Invalid API key: Bearer \*\*\*/,
	},
	{
		name: 'a 400 whose JSON echoes the key in its message and field',
		action: {
			status: 400,
			bodyKind: 'json',
			body: JSON.stringify({
				error: {
					code: 'bad_header',
					message: echo('Malformed'),
					field: `Authorization: Bearer ${API_KEY}`,
				},
			}),
		},
		says: /rejected the message \(400\): Malformed Bearer \*\*\*/,
	},
	{
		name: 'a 400 whose long text is cut off in the middle of the key',
		action: {
			status: 400,
			bodyKind: 'text',
			body: `${'x'.repeat(470)} ${API_KEY} ${'y'.repeat(40)}`,
		},
		says: /rejected the message \(400\): x{470}/,
	},
	{
		name: 'a 403 HTML page that echoes the key',
		action: {
			status: 403,
			bodyKind: 'html',
			body: `<html><body><h1>Forbidden</h1><p>${echo('Key')}</p></body></html>`,
		},
		says: /rejected the API key \(403\): Forbidden Key Bearer \*\*\*/,
	},
	{
		name: 'a 404',
		action: { status: 404, bodyKind: 'json' },
		says: /did not find what was asked for \(404\)/,
	},
	{
		name: 'a 409',
		action: { status: 409, bodyKind: 'text', body: echo('Conflict for') },
		says: /conflict with an earlier request \(409\)/,
	},
	{
		name: 'a real 422 (session window closed)',
		items: 'closedSession',
		says: /rejected the message \(422\)/,
	},
	{
		name: 'a 429 with Retry-After',
		action: { status: 429, bodyKind: 'json', headers: { 'Retry-After': '0' } },
		parameters: { options: { maxTries429: 2 } },
		says: /limiting the send rate \(429\) after 2 tries/,
	},
	{
		name: 'a 500 echoing the key',
		action: { status: 500, bodyKind: 'text', body: echo('Crashed on') },
		says: /failed on its side \(500\)/,
	},
	{
		name: 'a 502 HTML page',
		action: { status: 502, bodyKind: 'html' },
		says: /failed on its side \(502\)/,
	},
	{
		name: 'a 503 with an Idempotency Key, retried',
		action: { status: 503, bodyKind: 'empty' },
		parameters: { options: { idempotencyKey: '=secret-{{ $json.to }}', maxTries429: 2 } },
		says: /failed on its side \(503\)/,
	},
	{
		name: 'a 200 that is not JSON',
		action: { status: 200, bodyKind: 'not-json' },
		says: /without a valid acknowledgement/,
	},
	{
		name: 'a 200 whose body echoes the key',
		action: { status: 200, bodyKind: 'json', body: JSON.stringify({ echo: `Bearer ${API_KEY}` }) },
		says: /without a valid acknowledgement .*\*\*\*/,
	},
	{
		name: 'a 2xx without a message id',
		action: { status: 202, bodyKind: 'ack-without-id' },
		says: /answered 202 without a valid acknowledgement/,
	},
	{
		name: 'a timeout',
		action: { delayMs: 3000 },
		parameters: { options: { timeout: 1000 } },
		says: /did not answer within 1000 ms/,
	},
	{
		name: 'a reset before the body is read',
		action: { reset: 'before-body' },
		says: /connection to the Messaging API broke/,
	},
	{
		name: 'a reset after the message was accepted',
		action: { reset: 'after-body' },
		says: /connection to the Messaging API broke/,
	},
	{
		name: 'a closed port',
		closedPort: true,
		parameters: { options: { maxTries429: 2 } },
		says: /^Could not connect to the Messaging API$/,
	},
];

let sandbox: Sandbox;
const tally = createTally();
reportTallyAfterAll('secrets', tally);

beforeAll(async () => {
	sandbox = await startSandbox({
		port: 0,
		lifecycle: null,
		seed: {
			...DEFAULT_SEED,
			account: { ...DEFAULT_SEED.account, apiKey: API_KEY, signingSecret: SIGNING_SECRET },
		},
	});
});

afterAll(async () => {
	await sandbox.close();
});

beforeEach(() => {
	sandbox.clearFaults();
	produced.length = 0;
	n8nCoreLogs.length = 0;
});

function workflowFor(failure: FailureThrough) {
	const base = failure.items === 'closedSession' ? whatsappSessionFromItem : smsFromItem;
	const options = {
		...(base.options as INodeParameters),
		...((failure.parameters?.options as INodeParameters) ?? {}),
	};
	return messagingWorkflow({ ...base, ...failure.parameters, options });
}

function itemsFor(failure: FailureThrough, caseNumber: number, mode: number) {
	const to = `+9195${String(caseNumber).padStart(2, '0')}${mode}00001`;
	if (failure.items === 'badPhone') return [{ json: smsItem('12345', `${caseNumber}`) }];
	if (failure.items === 'closedSession')
		return [{ json: whatsappSessionItem(to, `${caseNumber}`) }];
	return [{ json: smsItem(to, `${caseNumber}`) }];
}

describe('the API key never appears in anything a failed send produces', () => {
	test.each(
		failures.flatMap((failure, caseNumber) =>
			[true, false].map((continueOnFail) => ({ ...failure, caseNumber, continueOnFail })),
		),
	)('$name (continueOnFail: $continueOnFail)', async (failure) => {
		if (failure.action) sandbox.addFault({ action: failure.action });
		const apiKey = failure.wrongKey ? WRONG_API_KEY : API_KEY;

		const items = itemsFor(failure, failure.caseNumber, failure.continueOnFail ? 1 : 0);
		const result = await runWorkflow({
			workflow: workflowFor(failure),
			credentials: { baseUrl: failure.closedPort ? await closedPortUrl() : sandbox.url, apiKey },
			items,
			continueOnFail: failure.continueOnFail,
		});

		const everything = [
			everythingAbout(result),
			...produced,
			inspect(n8nCoreLogs, { depth: 12 }),
		].join('\n');
		tally.cases++;
		if (containsSecret(everything, apiKey)) tally.secretsLeaked++;
		if (sandbox.messages().filter((message) => message.to === items[0].json.to).length > 1)
			tally.messagesDuplicated++;

		const shown = failure.continueOnFail
			? String(result.outputs.Messaging?.[0]?.json.error)
			: String(result.error?.message);
		expect(shown).toMatch(failure.says);
		expect(secretSightings(everything, apiKey)).toEqual([]);
		if (failure.action || failure.wrongKey) {
			const [request] = sandbox.requests().slice(-1);
			expect(request.headers.authorization).toBe(`Bearer ${apiKey}`);
		}
	});

	test('the capture sees what it should: a leak planted in each channel would be found', async () => {
		const result = await runWorkflow({
			workflow: workflowFor(failures[0]),
			credentials: { baseUrl: sandbox.url, apiKey: API_KEY },
			items: itemsFor(failures[0], 99, 0),
		});
		LoggerProxy.debug(`planted ${API_KEY.slice(5, 20)}`);
		console.warn('planted', API_KEY.slice(10, 30));

		expect(containsSecret(everythingAbout(result), API_KEY)).toBe(false);
		expect(produced.filter((line) => containsSecret(line, API_KEY))).toHaveLength(2);
	});
});

describe('the credential test never shows the key it tests', () => {
	async function testCredential(baseUrl: string) {
		const credential: ICredentialsDecrypted = {
			id: '1',
			name: 'Messaging API',
			type: 'messagingApi',
			data: { baseUrl, apiKey: API_KEY },
		};
		return await testMessagingApiCredential.call(new CredentialTestContext(), credential);
	}

	test.each([
		[
			'a 401 that echoes the key',
			{ status: 401, bodyKind: 'text', body: echo('Unknown key') } as FaultAction,
			/^The Messaging API rejected the API key \(401\): Unknown key .*\*\*\*.*Check the API Key in the Messaging API credential/,
		],
		[
			'a 500 cut off in the middle of the key',
			{ status: 500, bodyKind: 'text', body: `${'x'.repeat(470)} ${API_KEY}` } as FaultAction,
			/^The Messaging API failed on its side \(500\): x+.*This is a provider-side problem; try again later\. Nothing was sent\.$/,
		],
		[
			'a 404 page that echoes the key',
			{ status: 404, bodyKind: 'html', body: `<p>${echo('No route for')}</p>` } as FaultAction,
			/^The Messaging API did not find what was asked for \(404\).*Check the credential's Base URL \(the API root, e\.g\. https:\/\/api\.example\.com, without \/v1\)\.$/,
		],
	])('%s', async (_name, action, says) => {
		sandbox.addFault({ action });

		const result = await testCredential(sandbox.url);

		expect(result.status).toBe('Error');
		expect(result.message).toMatch(says);
		expect(sandbox.requests().slice(-1)[0].headers.authorization).toBe(`Bearer ${API_KEY}`);
		const everything = [JSON.stringify(result), ...produced].join('\n');
		tally.cases++;
		if (containsSecret(everything, API_KEY)) tally.secretsLeaked++;
		expect(secretSightings(everything, API_KEY)).toEqual([]);
	});
});

describe('the Messaging Trigger runs nothing it cannot trust, and never echoes its signing secret', () => {
	let harness: TriggerHarness;

	beforeEach(async () => {
		harness = await startTriggerHarness({ signingSecret: SIGNING_SECRET });
	});

	afterEach(async () => {
		await harness.close();
	});

	const refusals: Array<{
		name: string;
		post: () => Promise<{ status: number; body: unknown }>;
		status: number;
		code: string;
	}> = [
		{
			name: 'unsigned',
			post: () =>
				postDelivery(harness.url, JSON.stringify(deliveryEvent()), {
					omitHeaders: ['x-messaging-signature'],
				}),
			status: 401,
			code: 'missing_signature',
		},
		{
			name: 'signed with another secret',
			post: () =>
				postDelivery(harness.url, JSON.stringify(deliveryEvent()), {
					secret: `${SIGNING_SECRET}x`,
				}),
			status: 401,
			code: 'invalid_signature',
		},
		{
			name: 'tampered after signing',
			post: () => {
				const signed = JSON.stringify(deliveryEvent({ status: 'failed' }));
				return postDelivery(harness.url, signed.replace('"failed"', '"delivered"'), {
					secret: SIGNING_SECRET,
					signedBody: signed,
				});
			},
			status: 401,
			code: 'invalid_signature',
		},
		{
			name: 'replayed ten minutes after it was signed',
			post: () =>
				postDelivery(harness.url, JSON.stringify(deliveryEvent()), {
					secret: SIGNING_SECRET,
					timestamp: nowSeconds() - 600,
				}),
			status: 401,
			code: 'stale_timestamp',
		},
		{
			name: 'oversized',
			post: () =>
				postDelivery(
					harness.url,
					JSON.stringify({ ...deliveryEvent(), padding: 'x'.repeat(300 * 1024) }),
					{
						secret: SIGNING_SECRET,
					},
				),
			status: 413,
			code: 'body_too_large',
		},
		{
			name: 'signed but not JSON',
			post: () =>
				postDelivery(harness.url, `delivered ${SIGNING_SECRET.slice(0, 4)}`, {
					secret: SIGNING_SECRET,
					contentType: 'text/plain',
				}),
			status: 400,
			code: 'invalid_json',
		},
	];

	test.each(refusals)(
		'a request $name is refused with $status and starts nothing',
		async ({ post, status, code }) => {
			const answer = await post();

			expect(answer.status).toBe(status);
			expect(answer.body).toEqual({ error: expect.objectContaining({ code }) });
			expect(harness.runs).toHaveLength(0);
			expect(harness.staticData()).toEqual({});
			const everything = [
				JSON.stringify(answer),
				inspect(harness.logs, { depth: 12 }),
				...produced,
			].join('\n');
			tally.cases++;
			if (containsSecret(everything, SIGNING_SECRET)) tally.secretsLeaked++;
			expect(secretSightings(everything, SIGNING_SECRET)).toEqual([]);
		},
	);

	test('a signed event replayed at once is acknowledged but runs only once', async () => {
		const body = JSON.stringify(deliveryEvent());

		const first = await postDelivery(harness.url, body, { secret: SIGNING_SECRET });
		const replay = await postDelivery(harness.url, body, { secret: SIGNING_SECRET });

		expect([first.status, replay.status]).toEqual([200, 200]);
		expect(replay.body).toEqual({ received: 1, accepted: 0, duplicates: 1, filteredOut: 0 });
		expect(harness.runs).toHaveLength(1);
		const everything = [
			JSON.stringify([first, replay]),
			inspect(harness.logs, { depth: 12 }),
			...produced,
		].join('\n');
		tally.cases++;
		if (containsSecret(everything, SIGNING_SECRET)) tally.secretsLeaked++;
		if (harness.runs.length > 1) tally.messagesDuplicated++;
		expect(secretSightings(everything, SIGNING_SECRET)).toEqual([]);
	});
});
