/** An SMS Send's parameters as n8n hands them to the node: valid, so each test changes only what it checks. */
export const validSms: Readonly<Record<string, unknown>> = Object.freeze({
	to: '+919812345678',
	entityId: '1201159876543210123',
	templateId: '1207161111111111111',
	variablesInputMode: 'fields',
	variables: {
		variable: [
			{ name: 'customer_name', value: 'Asha' },
			{ name: 'order_id', value: 1234 },
		],
	},
	callbackUrl: '',
	defaultCountryCode: '',
});
