import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { forEachWithConcurrency } from '../../nodes/Messaging/throughput/pool';
import { joinUrl } from '../../nodes/Messaging/transport/sendMessagingRequest';
import { smsFormBody } from './campaignRows';
import type { CampaignRow } from './campaignRows';

const CREDENTIAL_TYPE = 'messagingApi';
const CONCURRENCY = 5;

/**
 * A yardstick, not a product: the least any node can do to send the benchmark's SMS through n8n's
 * `httpRequestWithAuthentication`. It reads each row's fields straight from the item (no expressions),
 * validates nothing, has no limiter or retries, and hands n8n the credential read once, as the Messaging node
 * does. What it cannot reach, no node bound to n8n's HTTP helper can.
 */
export class HelperFloor implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Helper Floor',
		name: 'helperFloor',
		group: ['output'],
		version: 1,
		description: 'Sends each row through n8n’s HTTP helper and nothing more',
		defaults: { name: 'Helper Floor' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const credentials = await this.getCredentials(CREDENTIAL_TYPE);
		const url = joinUrl(String(credentials.baseUrl), '/v1/sms/send');
		const credentialOptions = {
			credentialsDecrypted: {
				id: '1',
				name: 'Messaging API',
				type: CREDENTIAL_TYPE,
				data: credentials,
			},
		};
		const output: INodeExecutionData[] = new Array(items.length);
		await forEachWithConcurrency(items.length, CONCURRENCY, async (index) => {
			const acknowledgement = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				CREDENTIAL_TYPE,
				{
					method: 'POST',
					url,
					headers: {
						accept: 'application/json',
						'content-type': 'application/x-www-form-urlencoded',
					},
					body: smsFormBody(items[index].json as unknown as CampaignRow),
					json: true,
				},
				credentialOptions,
			)) as IDataObject;
			output[index] = { json: acknowledgement, pairedItem: { item: index } };
		});
		return [output];
	}
}
