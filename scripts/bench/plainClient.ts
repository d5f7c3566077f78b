import axios from 'axios';
import http from 'node:http';

import { smsFormBody } from './campaignRows';
import type { CampaignRow } from './campaignRows';

export interface PlainRunOutcome {
	wallMs: number;
	delivered: number;
	failed: number;
}

/**
 * `keep-alive`: axios with its defaults, reusing connections (the baseline).
 * `connection-per-request`: like n8n-core's HTTP helper, a new `http.Agent` without keep-alive for every
 * request, so each one opens its own TCP connection and sends `Connection: close`.
 */
export type PlainConnections = 'keep-alive' | 'connection-per-request';

/**
 * The baseline: what a developer would write by hand with axios, the same form-encoded body and
 * headers the node sends, `concurrency` requests in flight.
 */
export async function sendWithPlainAxios(
	rows: CampaignRow[],
	baseUrl: string,
	apiKey: string,
	concurrency: number,
	connections: PlainConnections = 'keep-alive',
): Promise<PlainRunOutcome> {
	const client = axios.create({
		baseURL: baseUrl,
		headers: {
			accept: 'application/json',
			authorization: `Bearer ${apiKey}`,
			'content-type': 'application/x-www-form-urlencoded',
		},
		validateStatus: () => true,
	});
	let nextRow = 0;
	let delivered = 0;
	let failed = 0;
	const sendLane = async () => {
		while (nextRow < rows.length) {
			const row = rows[nextRow++];
			const response = await client.post(
				'/v1/sms/send',
				smsFormBody(row),
				connections === 'connection-per-request'
					? { httpAgent: new http.Agent({ keepAlive: false }) }
					: undefined,
			);
			if (response.status === 200 && typeof response.data?.message_id === 'string') delivered++;
			else failed++;
		}
	};
	const started = performance.now();
	await Promise.all(Array.from({ length: concurrency }, sendLane));
	return { wallMs: performance.now() - started, delivered, failed };
}
