/**
 * Where a teamux screen's resident memory goes, for the memory rows' detail lines: /proc/PID/smaps
 * summed by kind (the node binary's pages, other mapped files, anonymous memory, which holds V8's
 * heap, the malloc heap, stacks) and the process's own report (bench/lib/heap-report.mjs, preloaded
 * into the screen, asked with SIGUSR2): V8's spaces, and what is live after a full GC (heapUsed,
 * external, arrayBuffers). Everything in MiB.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep } from './outer.mjs';
import { num } from './report.mjs';

const PRELOAD = fileURLToPath(new URL('./heap-report.mjs', import.meta.url));

/** The environment that makes a screen answer SIGUSR2 with a report in `file`. */
export function heapReportEnv(file) {
  return { NODE_OPTIONS: `--import=${PRELOAD} --expose-gc`, TEAMUX_BENCH_HEAP_REPORT: file };
}

/** Resident KiB of a process's mappings, by kind. */
export function smapsSplit(pid) {
  const split = { nodeBinary: 0, files: 0, anon: 0, malloc: 0, stack: 0 };
  let kind = 'anon';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const name = head[1];
      kind = name === '' ? 'anon' : name === '[heap]' ? 'malloc' : name.startsWith('[stack') ? 'stack' : name.startsWith('[') ? 'anon' : path.basename(name) === 'node' ? 'nodeBinary' : 'files';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) split[kind] += Number(rss[1]);
  }
  return split;
}

/** Ask the screen `pid` (started with heapReportEnv(file)) for its report; null if it does not answer in time. */
export async function askHeapReport(pid, file, timeoutMs = 30_000) {
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) return null;
    await sleep(50);
  }
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** One detail line: the smaps split (read before the report's GC) and the report. */
export function splitLine(label, rssBytes, split, report) {
  const mib = (kib) => num(kib / 1024, 1);
  const b = (bytes) => num(bytes / 2 ** 20, 1);
  let line = `${label}: RSS ${b(rssBytes)} = node binary ${mib(split.nodeBinary)} + other files ${mib(split.files)} + anonymous ${mib(split.anon)} + malloc heap ${mib(split.malloc)} + stacks ${mib(split.stack)}`;
  if (report) {
    const space = (name) => report.spaces.find((s) => s.space_name === name);
    const phys = (name) => b(space(name)?.physical_space_size ?? 0);
    line += `; V8 heap ${b(report.heap.total_physical_size)} (old ${phys('old_space')}, new ${phys('new_space')}, code ${phys('code_space')}, large ${phys('large_object_space')})`;
    line += `, used ${b(report.before.heapUsed)} before a full GC, ${b(report.after.heapUsed)} after; external ${b(report.after.external)} (array buffers ${b(report.after.arrayBuffers)})`;
  }
  return line;
}
