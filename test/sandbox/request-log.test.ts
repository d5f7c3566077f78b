import { RequestLog } from '../../sandbox/request-log';
import type { RecordedRequest } from '../../sandbox/types';

const request = (index: number): RecordedRequest => ({
	method: 'POST',
	path: `/r/${index}`,
	headers: {},
	contentType: 'application/json',
	rawBody: '{}',
	fields: {},
	receivedAt: index,
	response: { status: 200, body: null },
});

describe('the sandbox request log', () => {
	it('keeps every request, in arrival order, up to its capacity and a tenth', () => {
		const log = new RequestLog(100);
		for (let index = 0; index < 110; index++) log.add(request(index));
		expect(log.list().map((entry) => entry.path)).toEqual(
			Array.from({ length: 110 }, (_, index) => `/r/${index}`),
		);
	});

	it('past that, drops the oldest down to its capacity at once, the newest kept in order', () => {
		const log = new RequestLog(100);
		for (let index = 0; index < 111; index++) log.add(request(index));
		const paths = log.list().map((entry) => entry.path);
		expect(paths).toHaveLength(100);
		expect(paths[0]).toBe('/r/11');
		expect(paths[99]).toBe('/r/110');
	});

	it('never holds more than its capacity and a tenth however many arrive', () => {
		const log = new RequestLog(100);
		let most = 0;
		for (let index = 0; index < 1_000; index++) {
			log.add(request(index));
			most = Math.max(most, log.list().length);
		}
		expect(most).toBe(110);
		expect(log.list().at(-1)?.path).toBe('/r/999');
	});
});
