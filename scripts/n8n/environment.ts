import { LOOPBACK } from '../lib/ports';
import { pathWithNode24 } from './paths';

export interface N8nInstanceConfig {
	/** Parent of the `.n8n` folder: database, encryption key, and `.n8n/nodes` where community packages live. */
	userFolder: string;
	port: number;
	/**
	 * Every n8n process (server or CLI) starts a task broker; its default port 5679 would collide between
	 * processes and with other instances, so each one gets its own.
	 */
	brokerPort: number;
}

/** Variables n8n reads from the environment that would change its behaviour if inherited from the user's shell. */
const INHERITED_N8N_PREFIXES = ['N8N_', 'DB_', 'WEBHOOK_URL', 'EXECUTIONS_', 'GENERIC_TIMEZONE', 'QUEUE_'];

export function n8nEnvironment(config: N8nInstanceConfig): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!INHERITED_N8N_PREFIXES.some((prefix) => key.startsWith(prefix))) env[key] = value;
	}
	const origin = `http://${LOOPBACK}:${config.port}`;
	return {
		...env,
		PATH: pathWithNode24(),
		N8N_USER_FOLDER: config.userFolder,
		N8N_PORT: String(config.port),
		N8N_LISTEN_ADDRESS: LOOPBACK,
		N8N_HOST: LOOPBACK,
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `${origin}/`,
		WEBHOOK_URL: `${origin}/`,
		N8N_RUNNERS_BROKER_PORT: String(config.brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: LOOPBACK,
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		// No internet here: the templates gallery and community-node registry lookups would only time out.
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL ?? 'info',
		DB_TYPE: 'sqlite',
		// n8n's own choice of expression engine is kept unless asked for: the burst measures what it costs a trigger.
		...(process.env.N8N_EXPRESSION_ENGINE ? { N8N_EXPRESSION_ENGINE: process.env.N8N_EXPRESSION_ENGINE } : {}),
	};
}
