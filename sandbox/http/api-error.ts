/** An answer the provider gives on purpose, carried as the documented error body. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly field?: string,
		readonly headers: Record<string, string> = {},
	) {
		super(message);
	}

	toBody(): { error: { code: string; message: string; field?: string } } {
		return {
			error: {
				code: this.code,
				message: this.message,
				...(this.field === undefined ? {} : { field: this.field }),
			},
		};
	}
}

export function missingField(field: string, hint: string): ApiError {
	return new ApiError(400, 'missing_field', `The field '${field}' is required. ${hint}`, field);
}

export function invalidField(field: string, message: string): ApiError {
	return new ApiError(400, 'invalid_field', message, field);
}
