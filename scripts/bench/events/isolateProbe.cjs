/**
 * A preload for investigating n8n's memory under webhook load, never loaded by the bench itself:
 *
 *   ISOLATE_PROBE_OUT=/tmp/isolates.log NODE_OPTIONS="--require $PWD/scripts/bench/events/isolateProbe.cjs" \
 *     BENCH_SCENARIOS=events BENCH_EVENTS_SETTINGS=defaults BENCH_EVENTS_CASES=batching npm run bench
 *
 * In the n8n process only, it counts the isolated-vm isolates alive (n8n's expression isolates) and writes one line
 * a second: isolates alive, built so far, their V8 heaps, n8n's RSS and the event loop's longest delay. isolated-vm's
 * methods cannot be replaced, so its module is handed out through a Proxy whose `Isolate` is a counting subclass.
 */
const Module = require('node:module');
const fs = require('node:fs');
const { monitorEventLoopDelay } = require('node:perf_hooks');

const out = process.env.ISOLATE_PROBE_OUT;

function rssMb() {
	const status = fs.readFileSync('/proc/self/status', 'utf8');
	return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

function heapMb(isolates) {
	let bytes = 0;
	for (const isolate of isolates) {
		if (isolate.isDisposed) {
			isolates.delete(isolate);
			continue;
		}
		const heap = isolate.getHeapStatisticsSync();
		bytes += heap.total_heap_size + (heap.externally_allocated_size || 0);
	}
	return bytes / 1048576;
}

function probe() {
	const live = new Set();
	let built = 0;
	let proxied;
	const load = Module._load;
	Module._load = function (request, ...rest) {
		const exported = load.call(this, request, ...rest);
		if (request !== 'isolated-vm' || !exported?.Isolate) return exported;
		if (!proxied) {
			class CountedIsolate extends exported.Isolate {
				constructor(...args) {
					super(...args);
					live.add(this);
					built++;
				}
				dispose(...args) {
					live.delete(this);
					return super.dispose(...args);
				}
			}
			proxied = new Proxy(exported, {
				get: (target, key) => (key === 'Isolate' ? CountedIsolate : Reflect.get(target, key)),
			});
		}
		return proxied;
	};
	const delay = monitorEventLoopDelay({ resolution: 10 });
	delay.enable();
	setInterval(() => {
		const line = `${Date.now()} live=${live.size} built=${built} isolateHeapMB=${heapMb(live).toFixed(0)} rssMB=${rssMb().toFixed(0)} loopDelayMaxMs=${(delay.max / 1e6).toFixed(0)}\n`;
		delay.reset();
		fs.appendFileSync(out, line);
	}, 1000).unref();
}

if (out && (process.argv[1] ?? '').endsWith('/bin/n8n')) probe();
