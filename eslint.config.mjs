// n8n's own community-node rules, the ones used to verify community packages.
import { config } from '@n8n/node-cli/eslint';

export default config;
