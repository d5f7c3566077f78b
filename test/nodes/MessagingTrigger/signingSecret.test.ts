import {
	SIGNING_SECRET_RECHECK_MS,
	SIGNING_SECRET_TTL_MS,
} from '../../../nodes/MessagingTrigger/signingSecret';
import { deliveryEvent, postDelivery } from './support/signedDelivery';
import { startTriggerHarness, type TriggerHarness } from './support/triggerHarness';

const SECRET = 'whsec_signing_secret_test_9e21';
const ROTATED = 'whsec_rotated_secret_7c1d';

/** Virtual time for the secret's age: Date.now() moves only when the test says so. */
function virtualClock(): { advance(ms: number): void; restore(): void } {
	const realNow = Date.now.bind(Date);
	const startedAt = realNow();
	let offset = 0;
	const spy = jest.spyOn(Date, 'now').mockImplementation(() => startedAt + offset);
	return {
		advance: (ms) => {
			offset += ms;
		},
		restore: () => spy.mockRestore(),
	};
}

describe('Messaging Trigger signing secret reads', () => {
	let harness: TriggerHarness;
	let clock: ReturnType<typeof virtualClock>;

	beforeEach(async () => {
		clock = virtualClock();
		harness = await startTriggerHarness({ signingSecret: SECRET });
	});

	afterEach(async () => {
		clock.restore();
		await harness.close();
	});

	const deliver = (secret: string) =>
		postDelivery(harness.url, JSON.stringify(deliveryEvent()), { secret });

	it(`reads the credential once for a burst, and again once the secret is ${SIGNING_SECRET_TTL_MS} ms old`, async () => {
		await Promise.all(Array.from({ length: 10 }, () => deliver(SECRET)));
		expect(harness.credentialReads()).toBe(1);

		clock.advance(SIGNING_SECRET_TTL_MS);
		await deliver(SECRET);
		expect(harness.credentialReads()).toBe(2);
		expect(harness.runs).toHaveLength(11);
	});

	it(`reads the credential at most once per ${SIGNING_SECRET_RECHECK_MS} ms for deliveries it does not verify`, async () => {
		await deliver(SECRET);
		clock.advance(SIGNING_SECRET_RECHECK_MS);

		const forged = await Promise.all(Array.from({ length: 30 }, () => deliver('whsec_forged')));
		for (let index = 0; index < 20; index++) await deliver('whsec_forged');
		expect(forged.map((answer) => answer.status)).toEqual(forged.map(() => 401));
		expect(harness.credentialReads()).toBe(2);

		clock.advance(SIGNING_SECRET_RECHECK_MS - 1);
		await deliver('whsec_forged');
		expect(harness.credentialReads()).toBe(2);
		clock.advance(1);
		await deliver('whsec_forged');
		expect(harness.credentialReads()).toBe(3);
		expect(harness.runs).toHaveLength(1);
	});

	it(`applies a secret changed in the credential within ${SIGNING_SECRET_RECHECK_MS} ms`, async () => {
		await deliver(SECRET);
		harness.setSigningSecret(ROTATED);

		clock.advance(SIGNING_SECRET_RECHECK_MS - 1);
		expect((await deliver(ROTATED)).status).toBe(401);
		clock.advance(1);
		expect((await deliver(ROTATED)).status).toBe(200);
		expect((await deliver(SECRET)).status).toBe(401);
		expect(harness.runs).toHaveLength(2);
	});
});
