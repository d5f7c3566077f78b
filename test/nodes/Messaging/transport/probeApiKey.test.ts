import type { IHttpRequestOptions } from 'n8n-workflow';

import { probeApiKey } from '../../../../nodes/Messaging/transport/probeApiKey';
import type { FullResponse } from '../../../../nodes/Messaging/transport/sendMessagingRequest';

const apiKey = 'sk_live_probe_0123456789';
const endpoint = { baseUrl: 'https://api.example.com/', apiKey };

/** Stands in for n8n's HTTP helper: what it was asked to send, and the answer it gives. */
function answering(answer: FullResponse | Error) {
	const sent: IHttpRequestOptions[] = [];
	const perform = async (options: IHttpRequestOptions) => {
		sent.push(options);
		if (answer instanceof Error) throw answer;
		return answer;
	};
	return { sent, perform };
}

describe('probeApiKey: an empty SMS send proves the key', () => {
	test('asks for the SMS endpoint with an empty JSON body, as the transport builds every send', async () => {
		const { sent, perform } = answering({ statusCode: 422, body: {} });
		await probeApiKey(endpoint, perform);
		expect(sent).toEqual([
			expect.objectContaining({
				method: 'POST',
				url: 'https://api.example.com/v1/sms/send',
				body: {},
				json: true,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				timeout: 15000,
			}),
		]);
		expect(JSON.stringify(sent)).not.toContain(apiKey);
	});

	test.each([200, 202, 400, 422])('HTTP %i: the key passed', async (statusCode) => {
		const { perform } = answering({ statusCode, body: { error: { code: 'missing_field' } } });
		expect(await probeApiKey(endpoint, perform)).toEqual({ accepted: true });
	});

	test.each([
		[
			401,
			{ error: { message: `Key ${apiKey} is not valid.` } },
			'The Messaging API rejected the API key (401): Key *** is not valid. Check the API Key in the Messaging API credential, and that the key may send on this channel.',
		],
		[
			403,
			undefined,
			'The Messaging API rejected the API key (403). Check the API Key in the Messaging API credential, and that the key may send on this channel.',
		],
		[
			404,
			'Not Found',
			"The Messaging API did not find what was asked for (404): Not Found. Check the credential's Base URL (the API root, e.g. https://api.example.com, without /v1).",
		],
		[
			503,
			undefined,
			'The Messaging API failed on its side (503). This is a provider-side problem; try again later. Nothing was sent.',
		],
	])(
		'HTTP %i: refused in the words of a failed send, the key masked',
		async (statusCode, body, says) => {
			const { perform } = answering({ statusCode, body });
			expect(await probeApiKey(endpoint, perform)).toEqual({ accepted: false, message: says });
		},
	);

	test('a refused connection names the Base URL', async () => {
		const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
		const { perform } = answering(refused);
		expect(await probeApiKey(endpoint, perform)).toEqual({
			accepted: false,
			message:
				"Could not connect to the Messaging API. Check the credential's Base URL and that the service is reachable from n8n. Nothing was sent.",
		});
	});
});
