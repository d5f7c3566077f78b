import { startModelDouble } from './server';

/** `npx tsx scripts/model-double/cli.ts`: the model double on MODEL_DOUBLE_PORT (default 5680). */
async function main(): Promise<void> {
	const double = await startModelDouble(Number(process.env.MODEL_DOUBLE_PORT ?? 5680));
	console.log(
		`Model double at ${double.openAiBaseUrl} (set it as the OpenAI credential's Base URL)`,
	);
	const stop = () => void double.stop().then(() => process.exit(0));
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

void main();
