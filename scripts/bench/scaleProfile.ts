import fs from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';
import v8 from 'node:v8';

type Profile = { head: unknown };

const session = new Session();

function post<T>(method: string, params: object = {}): Promise<T> {
	return new Promise((resolve, reject) =>
		session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))),
	);
}

/** Sampling with collected objects kept: what each function allocated, garbage included, not only what lived. */
async function startSampling(): Promise<void> {
	await post('HeapProfiler.startSampling', {
		samplingInterval: 32_768,
		includeObjectsCollectedByMajorGC: true,
		includeObjectsCollectedByMinorGC: true,
	});
}

/**
 * BENCH_SCALE_PROFILE_DIR: the scale probe writes, per phase (validation = before the first request, sending =
 * after it), an allocation profile (.heapprofile, DevTools' format), the heap's size at the phase's end before any
 * forced GC, and heap snapshots (retained only: a snapshot collects first) at the first and the middle request.
 */
export function profilePhases(dir: string, items: number, sender: string) {
	fs.mkdirSync(dir, { recursive: true });
	session.connect();
	const file = (name: string) => path.join(dir, `${sender}-${items}-${name}`);
	const phases: Record<string, object> = {};
	let requests = 0;
	const endPhase = async (name: string) => {
		phases[name] = { ...process.memoryUsage() };
		const { profile } = await post<{ profile: Profile }>('HeapProfiler.stopSampling');
		fs.writeFileSync(file(`${name}.heapprofile`), JSON.stringify(profile));
	};
	return {
		start: startSampling,
		/** Called as each request leaves, before it is made. */
		onRequest: async () => {
			requests++;
			if (requests === 1) {
				await endPhase('validation');
				v8.writeHeapSnapshot(file('first-send.heapsnapshot'));
				await startSampling();
			}
			if (requests === Math.ceil(items / 2)) v8.writeHeapSnapshot(file('middle.heapsnapshot'));
		},
		finish: async () => {
			await endPhase('sending');
			fs.writeFileSync(file('phases.json'), JSON.stringify(phases, null, 2));
		},
	};
}
