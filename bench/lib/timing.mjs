/**
 * Timing for benchmarks: a monotonic clock in milliseconds, percentiles over latency samples, and
 * rates. Nothing here knows what is being measured.
 */
import { performance } from 'node:perf_hooks';

/** Milliseconds on a monotonic clock (comparable across calls within one process only). */
export function clock() {
  return performance.now();
}

/** Run `fn` once and return its value with the milliseconds it took. */
export async function timed(fn) {
  const start = clock();
  const value = await fn();
  return { value, ms: clock() - start };
}

/** The p-th percentile (0..100) of samples already sorted ascending, by nearest rank. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** Count, mean and the usual percentiles of a list of samples (any order). */
export function summarize(samples) {
  const sorted = Float64Array.from(samples).sort();
  const n = sorted.length;
  let sum = 0;
  for (const x of sorted) sum += x;
  return {
    n,
    mean: n === 0 ? NaN : sum / n,
    min: n === 0 ? NaN : sorted[0],
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: n === 0 ? NaN : sorted[n - 1],
  };
}

/** Operations per second for `count` operations in `ms` milliseconds. */
export function perSecond(count, ms) {
  return ms > 0 ? (count * 1000) / ms : Infinity;
}
