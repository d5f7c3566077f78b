import { randomUUID } from 'node:crypto';

export interface OwnerAccount {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

/**
 * The editor's own REST API, used the way the editor uses it: a session cookie from login, and the
 * browser-id header n8n binds that cookie to.
 */
export class N8nRestClient {
	private cookie = '';
	private readonly browserId = randomUUID();

	constructor(readonly baseUrl: string) {}

	/** Creates the owner on a fresh instance, or logs in when an earlier run already did. */
	async setupOwnerOrLogin(owner: OwnerAccount): Promise<'created' | 'existing'> {
		const setup = await this.send('POST', '/rest/owner/setup', owner);
		if (setup.ok) return 'created';
		const login = await this.send('POST', '/rest/login', {
			emailOrLdapLoginId: owner.email,
			password: owner.password,
		});
		if (login.ok) return 'existing';
		throw new Error(
			`Could not set up the owner (${setup.status}: ${await setup.text()}) nor log in as ${owner.email} (${login.status}: ${await login.text()}).`,
		);
	}

	async get<T>(path: string): Promise<T> {
		return this.expectJson<T>('GET', path);
	}

	async post<T>(path: string, body: unknown): Promise<T> {
		return this.expectJson<T>('POST', path, body);
	}

	async patch<T>(path: string, body: unknown): Promise<T> {
		return this.expectJson<T>('PATCH', path, body);
	}

	/** Publishes the workflow's current version, as the editor's Active toggle does. */
	async activateWorkflow(id: string): Promise<void> {
		const stored = await this.get<{ versionId: string }>(`/rest/workflows/${id}`);
		await this.post(`/rest/workflows/${id}/activate`, { versionId: stored.versionId });
	}

	/** Saves a new workflow and activates it; returns its id. */
	async createActiveWorkflow(workflow: object): Promise<string> {
		const created = await this.post<{ id: string }>('/rest/workflows', {
			...workflow,
			active: false,
		});
		await this.activateWorkflow(created.id);
		return created.id;
	}

	private async expectJson<T>(method: string, path: string, body?: unknown): Promise<T> {
		let response = await this.send(method, path, body);
		let text = await response.text();
		// A saturated n8n misses its 2-second database ping and answers every REST call 503 "Database is not
		// ready!" until the next ping succeeds: a read is asked again, for up to a minute.
		for (
			let tries = 1;
			tries < DATABASE_NOT_READY_TRIES && method === 'GET' && isDatabaseNotReady(response, text);
			tries++
		) {
			await new Promise((resolve) => setTimeout(resolve, 1_000));
			response = await this.send(method, path, body);
			text = await response.text();
		}
		if (!response.ok)
			throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
		const parsed = JSON.parse(text) as { data?: T };
		return (parsed.data ?? parsed) as T;
	}

	private async send(method: string, path: string, body?: unknown): Promise<Response> {
		const headers: Record<string, string> = { 'browser-id': this.browserId };
		if (this.cookie) headers.cookie = this.cookie;
		if (body !== undefined) headers['content-type'] = 'application/json';
		const response = await fetch(`${this.baseUrl}${path}`, {
			method,
			headers,
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const authCookie = response.headers
			.getSetCookie()
			.find((cookie) => cookie.startsWith('n8n-auth='));
		if (authCookie) this.cookie = authCookie.split(';')[0];
		return response;
	}
}

const DATABASE_NOT_READY_TRIES = 60;

function isDatabaseNotReady(response: Response, text: string): boolean {
	return response.status === 503 && text.includes('Database is not ready');
}
