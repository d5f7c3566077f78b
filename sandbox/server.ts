import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { jsonAnswer, writeAnswer } from './http/respond';
import type { SandboxContext } from './sandbox-context';
import { ADMIN_PREFIX, handleAdminRequest, type AdminOperations } from './routes/admin-routes';
import { handleApiRequest } from './routes/api-request';

export function createSandboxServer(context: SandboxContext, admin: AdminOperations): Server {
	return createServer((request, response) => {
		const startedAt = Date.now();
		const path = new URL(request.url ?? '/', 'http://sandbox').pathname;
		response.on('finish', () =>
			context.log(
				`${request.method} ${path} -> ${response.statusCode} (${Date.now() - startedAt} ms)`,
			),
		);
		route(context, admin, request, response, path).catch((error: unknown) => {
			context.log(`${request.method} ${path} failed inside the sandbox: ${String(error)}`);
			if (!response.headersSent) {
				writeAnswer(
					response,
					jsonAnswer(500, { error: { code: 'internal_error', message: 'The sandbox failed.' } }),
				);
			}
		});
	});
}

function route(
	context: SandboxContext,
	admin: AdminOperations,
	request: IncomingMessage,
	response: ServerResponse,
	path: string,
): Promise<void> {
	if (path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`))
		return handleAdminRequest(admin, request, response, path);
	return handleApiRequest(context, request, response, path);
}

export function listen(server: Server, port: number, host: string): Promise<number> {
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			server.off('error', reject);
			const address = server.address();
			if (address === null || typeof address === 'string')
				reject(new Error('The sandbox has no TCP address'));
			else resolve(address.port);
		});
	});
}
