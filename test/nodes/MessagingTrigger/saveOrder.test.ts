import {
	holdAnswerInSaveOrder,
	SaveOrder,
	saveOrderOf,
} from '../../../nodes/MessagingTrigger/saveOrder';

/** A response whose end() records what went out, in one log shared by every delivery of a test. */
class RecordingResponse {
	constructor(private readonly log: string[]) {}
	end(chunk?: unknown): this {
		this.log.push(String(chunk));
		return this;
	}
}

async function settle(): Promise<void> {
	for (let turn = 0; turn < 5; turn++) await Promise.resolve();
}

/** Deliveries that asked for their turn at once, in this order; `granted` lists whose turn came, in order. */
function deliveries(order: SaveOrder, names: string[], log: string[]) {
	const granted: string[] = [];
	const all = names.map((name) => {
		const response = new RecordingResponse(log);
		const held = holdAnswerInSaveOrder(order, response, () => log.push(`${name} overtaken`));
		void order.turn().then(() => granted.push(name));
		return {
			serialise: () => held.serialised(),
			/** n8n answers 200 once the save landed. */
			land: () => response.end(`${name} 200`),
			/** n8n could not create the execution: it saved nothing and answers 500. */
			fail: () => response.end(`${name} 500`),
		};
	});
	return { all, granted };
}

/** Three deliveries a, b, c that asked for their turn at once, once a and b have theirs. */
async function threeInLine() {
	const order = new SaveOrder();
	const log: string[] = [];
	const {
		all: [a, b, c],
		granted,
	} = deliveries(order, ['a', 'b', 'c'], log);
	await settle();
	return { order, log, granted, a, b, c };
}

describe('SaveOrder: answers once the database holds the delivery’s ids', () => {
	it('lets every delivery but the last in line hand over at once; the last once every earlier one was answered', async () => {
		const { order, log, granted, a, b, c } = await threeInLine();
		expect(granted).toEqual(['a', 'b']);
		a.serialise();
		b.serialise();
		a.land();
		await settle();
		expect(granted).toEqual(['a', 'b']);
		b.land();
		await settle();
		expect(granted).toEqual(['a', 'b', 'c']);
		c.serialise();
		c.land();
		expect(log).toEqual(['a 200', 'b 200', 'c 200']);
		expect(order.heldCount()).toBe(0);
	});

	it('lets the last in line go at once when another delivery comes in behind it', async () => {
		const order = new SaveOrder();
		const log: string[] = [];
		const first = deliveries(order, ['a', 'b'], log);
		await settle();
		expect(first.granted).toEqual(['a']);
		const second = deliveries(order, ['c'], log);
		await settle();
		expect(first.granted).toEqual(['a', 'b']);
		expect(second.granted).toEqual([]);
	});

	it('lets a hand-over sure to be followed (a batch collecting behind it) go at once, and the follower wait as the last', async () => {
		const order = new SaveOrder();
		const log: string[] = [];
		const first = deliveries(order, ['a'], log);
		await settle();
		const response = new RecordingResponse(log);
		const held = holdAnswerInSaveOrder(order, response, () => log.push('b overtaken'));
		let bGranted = false;
		void order.turn(true).then(() => (bGranted = true));
		await settle();
		expect([first.granted, bGranted]).toEqual([['a'], true]);
		const last = deliveries(order, ['c'], log);
		await settle();
		expect(last.granted).toEqual([]);
		first.all[0].serialise();
		held.serialised();
		first.all[0].land();
		response.end('b 200');
		await settle();
		expect(last.granted).toEqual(['c']);
		expect(log).toEqual(['a 200', 'b 200']);
	});

	it('holds a newer save’s answer while an older one may still land, and until a save newer than both lands', async () => {
		const { order, log, granted, a, b, c } = await threeInLine();
		a.serialise();
		b.serialise();
		b.land();
		expect(log).toEqual([]);
		expect(order.heldCount()).toBe(1);
		// a's save lands last: the database lacks b's ids, until c, whose turn comes now, saves them again.
		a.land();
		await settle();
		expect(log).toEqual(['a 200']);
		expect(granted).toEqual(['a', 'b', 'c']);
		c.serialise();
		c.land();
		expect(log).toEqual(['a 200', 'b 200', 'c 200']);
	});

	it('answers an overtaken delivery after its warning when n8n fails the last hand-over, which would have saved again', async () => {
		const { log, a, b, c } = await threeInLine();
		a.serialise();
		b.serialise();
		b.land();
		a.land();
		await settle();
		c.fail();
		expect(log).toEqual(['a 200', 'b overtaken', 'b 200', 'c 500']);
	});

	it('lets through an answer whose save n8n never serialised, and does not order it', async () => {
		const { log, a, b, c } = await threeInLine();
		a.serialise();
		b.fail();
		expect(log).toEqual(['b 500']);
		a.land();
		expect(log).toEqual(['b 500', 'a 200']);
		c.serialise();
		c.land();
		expect(log).toEqual(['b 500', 'a 200', 'c 200']);
	});

	it('keeps one order per workflow', () => {
		expect(saveOrderOf('workflow-a')).toBe(saveOrderOf('workflow-a'));
		expect(saveOrderOf('workflow-a')).not.toBe(saveOrderOf('workflow-b'));
	});
});
