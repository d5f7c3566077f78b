import fs from 'node:fs';

const SAMPLE_EVERY_MS = 100;

/** What a process's memory reached: its high-water mark, and its resident size over time. */
export interface RssWatch {
	/** VmHWM, the kernel's own peak of the process's resident memory, MB (10^6 bytes). */
	peakMb: number;
	samples: Array<{ at: number; rssMb: number }>;
}

const BYTES_PER_MB = 1_000_000;

function readKilobytes(status: string, field: string): number | undefined {
	const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status);
	return match ? (Number(match[1]) * 1024) / BYTES_PER_MB : undefined;
}

/**
 * Watches a process's memory from /proc while it runs (Linux). VmHWM is the kernel's peak, so a spike between
 * two samples still counts; the samples place the memory in time (e.g. while one node ran).
 */
export function watchRss(pid: number, watch: RssWatch): () => void {
	const read = () => {
		try {
			const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
			const peak = readKilobytes(status, 'VmHWM');
			const rss = readKilobytes(status, 'VmRSS');
			if (peak !== undefined) watch.peakMb = Math.max(watch.peakMb, peak);
			if (rss !== undefined) watch.samples.push({ at: Date.now(), rssMb: rss });
		} catch {
			// gone, or no /proc
		}
	};
	const timer = setInterval(read, SAMPLE_EVERY_MS);
	return () => clearInterval(timer);
}

/** The highest resident size sampled within [from, to] (epoch ms), MB. */
export function peakWithin(watch: RssWatch, from: number, to: number): number {
	const within = watch.samples.filter((sample) => sample.at >= from && sample.at <= to);
	return Math.max(0, ...within.map((sample) => sample.rssMb));
}
