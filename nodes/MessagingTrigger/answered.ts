import { sleep } from 'n8n-workflow';

/** The part of a Node/express response read here, so a bare `http` response works in tests too. */
interface AnsweredResponse {
	statusCode: number;
	headersSent: boolean;
	/** Set by `end()` even on a closed connection, where Node leaves `headersSent` false unless writeHead ran. */
	writableEnded: boolean;
	writableFinished: boolean;
	/** True once the connection is gone: a batch leader may look only after its sender hung up. */
	destroyed: boolean;
	once(event: 'finish' | 'close', listener: () => void): unknown;
}

/**
 * How long to wait for n8n to answer a delivery whose sender hung up first. n8n goes on creating the execution and
 * writes its answer to the closed connection; only the status it wrote tells whether the execution exists. An
 * overloaded n8n took over two minutes (the events bench, 100 events per POST at n8n's defaults), and giving up
 * early releases events whose execution may still start: their retries would run them twice.
 */
export const ANSWER_AFTER_HANG_UP_MS = 10 * 60_000;
const HANG_UP_POLL_MS = 100;

function isSuccess(statusCode: number): boolean {
	return statusCode >= 200 && statusCode <= 299;
}

async function statusWrittenAfterHangUp(response: AnsweredResponse): Promise<boolean> {
	for (let waited = 0; waited < ANSWER_AFTER_HANG_UP_MS; waited += HANG_UP_POLL_MS) {
		if (response.writableEnded || response.headersSent) return isSuccess(response.statusCode);
		await sleep(HANG_UP_POLL_MS);
	}
	return false;
}

/** Resolves once n8n has answered the delivery: true when it answered 2xx, i.e. the execution exists. */
export function whenAnswered(response: AnsweredResponse): Promise<boolean> {
	if (response.writableFinished) return Promise.resolve(isSuccess(response.statusCode));
	if (response.destroyed) return statusWrittenAfterHangUp(response);
	return new Promise((resolve) => {
		response.once('finish', () => resolve(isSuccess(response.statusCode)));
		response.once('close', () => {
			if (!response.writableFinished) void statusWrittenAfterHangUp(response).then(resolve);
		});
	});
}
