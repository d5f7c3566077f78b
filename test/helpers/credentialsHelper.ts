import { Credentials, getAdditionalKeys } from 'n8n-core';
import { ICredentialsHelper, isExpression, NodeHelpers } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsExpressionResolveValues,
	IExecuteData,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeProperties,
	INodeParameters,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
	Workflow,
	WorkflowExecuteMode,
} from 'n8n-workflow';

/**
 * Applies credentials the way n8n's CLI CredentialsHelper does: a function `authenticate` is called,
 * a generic one has every key and value resolved as an expression with `$credentials` in scope and
 * written into the request's headers/qs/body/auth. Stored credential data may itself hold expressions.
 */
export class TestCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly credentialTypes: Record<string, ICredentialType>,
		private readonly credentialsByType: Record<string, ICredentialDataDecryptedObject>,
	) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		incoming: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const credentialType = this.credentialTypes[typeName];
		const { authenticate } = credentialType ?? {};
		if (typeof authenticate === 'function')
			return await authenticate(credentials, incoming as IHttpRequestOptions);
		if (!authenticate || authenticate.type !== 'generic') return incoming as IHttpRequestOptions;
		if (!workflow || !node)
			throw new Error('Workflow and node are required for declarative credential authentication');

		const resolve = (value: string): string => {
			if (!isExpression(value)) return value;
			const resolved = workflow.expression.getSimpleParameterValue(
				node,
				value,
				'internal',
				{ $credentials: credentials },
				undefined,
				'',
			);
			return resolved ? String(resolved) : '';
		};
		const request = incoming as unknown as Record<string, Record<string, unknown> | undefined>;
		request.headers ??= {};
		for (const [target, entries] of Object.entries(authenticate.properties)) {
			request[target] ??= {};
			for (const [key, value] of Object.entries(entries as Record<string, string>)) {
				request[target]![resolve(key)] = resolve(value);
			}
		}
		return incoming as IHttpRequestOptions;
	}

	async preAuthentication(
		_helpers: IHttpRequestHelper,
		_credentials: ICredentialDataDecryptedObject,
		_typeName: string,
		_node: INode,
		_credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<Credentials> {
		return new Credentials({ id: nodeCredentials.id, name: nodeCredentials.name }, type, '');
	}

	/** Like n8n's CLI: the type's defaults are applied, then expressions in the stored data are resolved for the item. */
	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const stored = this.credentialsByType[type];
		if (!stored) throw new Error(`No test credentials of type "${type}"`);
		if (raw === true) return { ...stored };
		const withDefaults = NodeHelpers.getNodeParameters(
			this.getCredentialsProperties(type),
			{ ...stored } as INodeParameters,
			true,
			false,
			null,
			null,
		);
		if (!expressionResolveValues) return withDefaults as ICredentialDataDecryptedObject;
		const { workflow, runExecutionData, runIndex, itemIndex, node, connectionInputData } =
			expressionResolveValues;
		return workflow.expression.getParameterValue(
			withDefaults as INodeParameters,
			runExecutionData,
			runIndex,
			itemIndex,
			node.name,
			connectionInputData,
			mode,
			getAdditionalKeys(additionalData, mode, null, { isCredential: true }),
			executeData,
			false,
			withDefaults as ICredentialDataDecryptedObject,
		) as ICredentialDataDecryptedObject;
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.credentialTypes[type]?.properties ?? [];
	}
}
