import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import type { OwnerAccount } from '../n8n/rest-client';

/**
 * The owner of a reused n8n user folder (`npm start`, the demo): made up on first use and kept beside
 * its database, so the login stays valid across restarts and no password is committed anywhere.
 */
export function loadOrCreateOwnerAccount(userFolder: string): OwnerAccount {
	const file = path.join(userFolder, 'owner-login.json');
	if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as OwnerAccount;
	const owner: OwnerAccount = {
		email: 'owner@example.com',
		// n8n requires 8+ characters with a digit and an upper-case letter.
		password: `Sandbox-${randomBytes(6).toString('hex')}-A1`,
		firstName: 'Sandbox',
		lastName: 'Owner',
	};
	fs.mkdirSync(userFolder, { recursive: true });
	fs.writeFileSync(file, JSON.stringify(owner, null, 2), { mode: 0o600 });
	return owner;
}
