import { sleep } from 'n8n-workflow';

/** The part of a Node/express response read here, so a bare `http` response works in tests too. */
interface AnsweredResponse {
	statusCode: number;
	headersSent: boolean;
	writableFinished: boolean;
	once(event: 'finish' | 'close', listener: () => void): unknown;
}

/**
 * How long to wait for n8n to answer a delivery whose sender hung up first. n8n goes on creating the execution and
 * writes its answer to the closed connection; only the status it wrote tells whether the execution exists.
 */
export const ANSWER_AFTER_HANG_UP_MS = 60_000;
const HANG_UP_POLL_MS = 50;

function isSuccess(statusCode: number): boolean {
	return statusCode >= 200 && statusCode <= 299;
}

async function statusWrittenAfterHangUp(response: AnsweredResponse): Promise<boolean> {
	for (let waited = 0; waited < ANSWER_AFTER_HANG_UP_MS; waited += HANG_UP_POLL_MS) {
		if (response.headersSent) return isSuccess(response.statusCode);
		await sleep(HANG_UP_POLL_MS);
	}
	return false;
}

/** Resolves once n8n has answered the delivery: true when it answered 2xx, i.e. the execution exists. */
export function whenAnswered(response: AnsweredResponse): Promise<boolean> {
	return new Promise((resolve) => {
		response.once('finish', () => resolve(isSuccess(response.statusCode)));
		response.once('close', () => {
			if (!response.writableFinished) void statusWrittenAfterHangUp(response).then(resolve);
		});
	});
}
