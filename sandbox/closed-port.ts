import { createServer } from 'node:net';

/** A loopback URL nothing listens on: a port the OS just handed out, then released. */
export async function closedPortUrl(): Promise<string> {
	const server = createServer();
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', resolve);
	});
	const address = server.address();
	await new Promise<void>((resolve) => server.close(() => resolve()));
	if (address === null || typeof address === 'string')
		throw new Error('No TCP address for the probe server');
	return `http://127.0.0.1:${address.port}`;
}
