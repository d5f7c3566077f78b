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
	/** Queue mode: the Postgres database and Redis queue shared by the main, worker and webhook processes. */
	queue?: QueueBackend;
}

export interface QueueBackend {
	redis: { host: string; port: number };
	postgres: { host: string; port: number; database: string; user: string };
	/** Every process of one instance must decrypt the same credentials. */
	encryptionKey: string;
}

/** As n8n's queue-mode documentation sets it up; the worker's health server answers on the instance's port. */
function queueEnvironment(queue: QueueBackend, port: number): NodeJS.ProcessEnv {
	return {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: queue.redis.host,
		QUEUE_BULL_REDIS_PORT: String(queue.redis.port),
		QUEUE_HEALTH_CHECK_ACTIVE: 'true',
		QUEUE_HEALTH_CHECK_PORT: String(port),
		N8N_WORKER_SERVER_ADDRESS: LOOPBACK,
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: queue.postgres.host,
		DB_POSTGRESDB_PORT: String(queue.postgres.port),
		DB_POSTGRESDB_DATABASE: queue.postgres.database,
		DB_POSTGRESDB_USER: queue.postgres.user,
		DB_POSTGRESDB_PASSWORD: '',
		N8N_ENCRYPTION_KEY: queue.encryptionKey,
	};
}

/** Variables n8n reads from the environment that would change its behaviour if inherited from the user's shell. */
const INHERITED_N8N_PREFIXES = [
	'N8N_',
	'DB_',
	'WEBHOOK_URL',
	'EXECUTIONS_',
	'GENERIC_TIMEZONE',
	'QUEUE_',
];

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
		...(config.queue ? queueEnvironment(config.queue, config.port) : {}),
		// n8n's own choice of expression engine is kept unless asked for: the burst measures what it costs a trigger.
		...(process.env.N8N_EXPRESSION_ENGINE
			? { N8N_EXPRESSION_ENGINE: process.env.N8N_EXPRESSION_ENGINE }
			: {}),
	};
}
