import { TestCredentialsHelper } from '../../../helpers/credentialsHelper';
import { useSandbox } from '../../../helpers/sandboxForTests';
import { loadWorkflowFixture, runWorkflow } from '../../../helpers/runWorkflow';

const sandbox = useSandbox();
const workflow = loadWorkflowFixture('sms-send');
const items = [0, 1, 2].map((index) => ({
	json: {
		phone: `+91981234567${index}`,
		name: `Customer ${index}`,
		orderId: String(index),
		eta: 'Mon',
	},
}));

afterEach(() => {
	jest.restoreAllMocks();
});

describe('the credential is read once per run', () => {
	test('n8n decrypts it once, and every request still gets its Authorization from the credential', async () => {
		const decrypt = jest.spyOn(TestCredentialsHelper.prototype, 'getDecrypted');
		const authenticate = jest.spyOn(TestCredentialsHelper.prototype, 'authenticate');

		const { outputs, error } = await runWorkflow({
			workflow,
			credentials: { baseUrl: sandbox().url, apiKey: sandbox().apiKey },
			items,
		});

		expect(error).toBeUndefined();
		expect(outputs.Messaging).toHaveLength(3);
		expect(decrypt).toHaveBeenCalledTimes(1);
		expect(authenticate).toHaveBeenCalledTimes(3);
		expect(
			sandbox()
				.requests()
				.map((request) => request.headers.authorization),
		).toEqual(Array(3).fill(`Bearer ${sandbox().apiKey}`));
	});
});
