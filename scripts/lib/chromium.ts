import { runCommand, runCommandOrThrow } from './command';

export const CHROMIUM_ARGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

async function whichChromium(): Promise<string | undefined> {
	const found = await runCommand('sh', [
		'-c',
		'command -v chromium || command -v chromium-browser',
	]);
	return found.code === 0 ? found.stdout.trim().split('\n')[0] : undefined;
}

/**
 * Debian's Chromium (playwright's own browser downloads are not reachable here). CI runs as root on a
 * fresh machine, so it is installed on the spot; elsewhere the message says what to run.
 */
export async function ensureChromium(log: (line: string) => void): Promise<string> {
	const existing = await whichChromium();
	if (existing) return existing;
	if (process.getuid?.() !== 0) {
		throw new Error(
			"Chromium is not installed. Install Debian's package first: sudo apt-get update && sudo apt-get install -y chromium",
		);
	}
	log('Installing Chromium from Debian (apt-get, first run on this machine only)');
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	await runCommandOrThrow('apt-get', ['update'], { env });
	await runCommandOrThrow('apt-get', ['install', '-y', 'chromium'], { env });
	const installed = await whichChromium();
	if (!installed) throw new Error('apt-get installed chromium but no chromium binary is on PATH.');
	return installed;
}
