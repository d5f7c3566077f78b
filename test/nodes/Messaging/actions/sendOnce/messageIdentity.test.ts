import {
	automaticIdempotencyKey,
	canonicalJson,
	messageIdentity,
	numberOccurrences,
} from '../../../../../nodes/Messaging/actions/sendOnce/messageIdentity';
import type { MessagingRequest } from '../../../../../nodes/Messaging/transport/messagingRequest';

const request: MessagingRequest = {
	path: '/v1/sms/send',
	fields: { to: '+919812345678', entity_id: 'e', template_id: 't', content: '{"a":"1"}' },
};

describe('the identity of a message', () => {
	test('key order and absent fields do not change it; any value does', () => {
		expect(canonicalJson({ b: 1, a: { d: [1, 2], c: undefined } })).toBe(
			canonicalJson({ a: { d: [1, 2] }, b: 1 }),
		);
		expect(canonicalJson({ b: [{ y: 1, x: null }], a: 'text' })).toBe(
			'{"a":"text","b":[{"x":null,"y":1}]}',
		);
		expect(canonicalJson(JSON.parse('{"10":1,"9":2,"b":3}'))).toBe(
			canonicalJson(JSON.parse('{"b":3,"9":2,"10":1}')),
		);
		// A key the data carries is data, whatever its name.
		expect(canonicalJson(JSON.parse('{"__proto__":{"a":1}}'))).not.toBe(canonicalJson({}));
		const item = { row: 7, phone: '+919812345678' };
		const same = messageIdentity({ request, inputItem: { phone: '+919812345678', row: 7 } });
		expect(messageIdentity({ request, inputItem: item })).toBe(same);
		expect(messageIdentity({ request, inputItem: { ...item, row: 8 } })).not.toBe(same);
		expect(
			messageIdentity({
				request: { ...request, fields: { ...request.fields, to: '+919812345679' } },
				inputItem: item,
			}),
		).not.toBe(same);
	});

	test("with the user's key the input item no longer counts, so a volatile field cannot make a new message", () => {
		const at = (now: string) =>
			messageIdentity({ request, userKey: 'order-1', inputItem: { now, order: 1 } });
		expect(at('2026-11-26T09:00:00Z')).toBe(at('2026-11-26T09:05:00Z'));
		expect(messageIdentity({ request, inputItem: { now: 'a' } })).not.toBe(
			messageIdentity({ request, inputItem: { now: 'b' } }),
		);
		expect(messageIdentity({ request, userKey: 'order-1', inputItem: {} })).not.toBe(
			messageIdentity({ request, userKey: 'order-2', inputItem: {} }),
		);
	});

	test('identical messages in one run are numbered, the first keeping its plain identity', () => {
		const numbered = numberOccurrences(['a', 'b', 'a', 'a']);
		expect(numbered[0]).toBe('a');
		expect(numbered[1]).toBe('b');
		expect(new Set(numbered).size).toBe(4);
		expect(numberOccurrences(['a', 'b', 'a', 'a'])).toEqual(numbered);
	});

	test('the provider key is printable, short, and differs between workflows and nodes', () => {
		const key = automaticIdempotencyKey('wf1', 'node1', 'id');
		expect(key).toMatch(/^n8n-[A-Za-z0-9_-]{43}$/);
		expect(automaticIdempotencyKey('wf2', 'node1', 'id')).not.toBe(key);
		expect(automaticIdempotencyKey('wf1', 'node2', 'id')).not.toBe(key);
	});
});
