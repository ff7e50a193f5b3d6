/**
 * Preloaded into a teamux screen under measurement (NODE_OPTIONS=--import=<this file>, only by
 * bench/lib/memory-split.mjs): on SIGUSR2 it writes the process's own view of its memory to
 * TEAMUX_BENCH_HEAP_REPORT (JSON: process.memoryUsage(), V8's heap spaces and heap statistics),
 * after a full GC when the process was started with --expose-gc. teamux itself never loads it.
 */
import { writeFileSync, renameSync } from 'node:fs';
import v8 from 'node:v8';

const out = process.env.TEAMUX_BENCH_HEAP_REPORT;
if (out) {
  process.on('SIGUSR2', () => {
    const before = process.memoryUsage();
    if (typeof globalThis.gc === 'function') globalThis.gc();
    const report = { before, after: process.memoryUsage(), spaces: v8.getHeapSpaceStatistics(), heap: v8.getHeapStatistics() };
    writeFileSync(`${out}.tmp`, JSON.stringify(report));
    renameSync(`${out}.tmp`, out);
  });
}
