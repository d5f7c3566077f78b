import type { Example } from '../../scripts/lib/examples';
import type { RestartOptions } from '../../scripts/lib/local-stack';
import type { SandboxAdmin } from '../../scripts/lib/sandbox-admin';
import type { N8nCliTarget } from '../../scripts/n8n/cli';
import type { N8nRestClient, OwnerAccount } from '../../scripts/n8n/rest-client';

/** One real n8n with the packed package installed, the sandbox it talks to, and handles to inspect both. */
export interface E2eContext {
	n8nBaseUrl: string;
	cli: N8nCliTarget;
	rest: N8nRestClient;
	owner: OwnerAccount;
	sandboxBaseUrl: string;
	sandbox: SandboxAdmin;
	examples: Example[];
	/** Where the installed package lives: `<N8N_USER_FOLDER>/.n8n/nodes/node_modules/n8n-nodes-messaging`. */
	installedPackageDir: string;
	screenshotsDir: string;
	/** n8n's SQLite database: `<N8N_USER_FOLDER>/.n8n/database.sqlite`. */
	databaseFile: string;
	/** Stops n8n and starts it again on the same port and database; `whileStopped` runs in between. */
	restartN8n(options?: Pick<RestartOptions, 'whileStopped'>): Promise<void>;
}
