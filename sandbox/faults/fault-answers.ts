import { STATUS_CODES } from 'node:http';
import { jsonAnswer, type HttpAnswer } from '../http/respond';
import type { Acknowledgement, RespondFaultAction } from '../types';

const ERROR_CODES: Record<number, string> = {
	400: 'bad_request',
	403: 'forbidden',
	429: 'rate_limited',
	500: 'internal_error',
	502: 'bad_gateway',
	503: 'service_unavailable',
	504: 'gateway_timeout',
};

export function isSuccessStatus(status: number): boolean {
	return status >= 200 && status < 300;
}

/** The answer a fault rule puts in place of the real one. acknowledgement is the real one, when there is one. */
export function faultAnswer(
	action: RespondFaultAction,
	acknowledgement: Acknowledgement | null,
): HttpAnswer {
	const reason = STATUS_CODES[action.status] ?? 'Unknown';
	const extra = action.headers ?? {};
	switch (action.bodyKind) {
		case 'json':
			if (action.body !== undefined)
				return textAnswer(action.status, 'application/json', action.body, extra);
			return jsonAnswer(
				action.status,
				isSuccessStatus(action.status)
					? {}
					: {
							error: {
								code: ERROR_CODES[action.status] ?? `http_${action.status}`,
								message: `${reason}.`,
							},
						},
				extra,
			);
		case 'text':
			return textAnswer(
				action.status,
				'text/plain; charset=utf-8',
				action.body ?? `${action.status} ${reason}`,
				extra,
			);
		case 'html':
			return textAnswer(
				action.status,
				'text/html; charset=utf-8',
				action.body ??
					`<html><head><title>${action.status} ${reason}</title></head><body><center><h1>${action.status} ${reason}</h1></center><hr><center>nginx</center></body></html>`,
				extra,
			);
		case 'empty':
			return { status: action.status, headers: extra, text: '', recordedBody: '' };
		case 'not-json': {
			// A JSON content type over a cut-off body: what a proxy that dropped the connection mid-answer leaves behind.
			const full = JSON.stringify(acknowledgement ?? { message_id: 'msg_', status: 'queued' });
			return textAnswer(
				action.status,
				'application/json',
				full.slice(0, Math.ceil(full.length / 2)),
				extra,
			);
		}
		case 'ack-without-id': {
			const { status, channel } = acknowledgement ?? { status: 'queued', channel: 'sms' };
			return jsonAnswer(action.status, { status, channel }, extra);
		}
	}
}

function textAnswer(
	status: number,
	contentType: string,
	text: string,
	extra: Record<string, string>,
): HttpAnswer {
	return { status, headers: { 'Content-Type': contentType, ...extra }, text, recordedBody: text };
}
