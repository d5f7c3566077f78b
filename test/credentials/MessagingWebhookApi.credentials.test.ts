import { MessagingWebhookApi } from '../../credentials/MessagingWebhookApi.credentials';

describe('Messaging webhook signing secret credential', () => {
	test('holds only the signing secret, as a password', () => {
		const credential = new MessagingWebhookApi();
		expect(credential.name).toBe('messagingWebhookApi');
		expect(credential.properties.map((property) => property.name)).toEqual(['signingSecret']);
		expect(credential.properties[0].typeOptions).toMatchObject({ password: true });
	});
});
