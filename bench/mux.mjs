#!/usr/bin/env node
/**
 * Benchmark of the multiplexer (src/app, src/vt, src/host, compiled to dist/) against tmux on the
 * same machine in the same run: throughput of a 30 MB coloured `cat`, keystroke-to-echo latency,
 * idle CPU, sidebar freshness after a task write, start-up time and memory with full scrollbacks.
 * Each figure is a ratio against a reference measured in this run (tmux with an attached client,
 * a raw node-pty read, or an fs.watch floor), alternating runs and reporting medians, because the
 * machine is small and shared. teamux runs directly in a node-pty this process drains (its outer
 * terminal, see lib/outer.mjs); tmux runs on private servers (`tmux -L bench-...`), never the
 * default one. The build measured is a copy of bin/ and dist/ taken at start, so a rebuild during
 * the run does not change it. Everything started is killed and every temp folder removed, even on
 * failure.
 *
 * Run: `npx tsc -p tsconfig.json && node bench/mux.mjs [SECTION...]`, sections: throughput, latency,
 * idle, sidebar, startup, resume, memory (default: all). Exits 1 when a section fails to run; a missed
 * target is reported, not fatal. TEAMUX_BENCH_BIN=/other/checkout/bin/teamux measures another
 * build (an A/B comparison of a change) with the same harness; BENCH_DEBUG=1 prints a failing
 * section's stack.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { cleanupAll, RUN_TAG, taggedPids, tempDir } from './lib/cleanup.mjs';
import { build, snapshotBuild, tmuxVersion } from './lib/mux-sessions.mjs';
import { machineLine, num, printTable } from './lib/report.mjs';
import { clock } from './lib/timing.mjs';
import { idle } from './mux/idle.mjs';
import { latency } from './mux/latency.mjs';
import { memory } from './mux/memory.mjs';
import { resume } from './mux/resume.mjs';
import { sidebar } from './mux/sidebar.mjs';
import { startup } from './mux/startup.mjs';
import { throughput } from './mux/throughput.mjs';

/** The sections, in the order they run. */
const SECTIONS = { throughput, latency, idle, sidebar, startup, resume, memory };

/** Outer terminal size for every section (the panes are laid out in it). */
const OUTER = { cols: 160, rows: 48 };

const HEAD = ['section', 'measure', 'teamux', 'reference', 'ratio', 'target', 'verdict'];

function preflight() {
  if (!existsSync(path.join(build.dist, 'cli', 'main.js'))) return `${build.dist} is missing; build it first with \`npx tsc -p tsconfig.json\``;
  if (tmuxVersion() === 'tmux not found') return 'tmux is not installed (it is the reference)';
  if (process.platform !== 'linux') return 'this benchmark reads /proc and runs on Linux only';
  return null;
}

async function main() {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !(w in SECTIONS));
  if (unknown.length > 0) {
    process.stderr.write(`bench/mux: unknown section ${unknown.join(', ')}; sections: ${Object.keys(SECTIONS).join(', ')}\n`);
    return 2;
  }
  const problem = preflight();
  if (problem) {
    process.stderr.write(`bench/mux: ${problem}\n`);
    return 2;
  }
  const names = wanted.length > 0 ? Object.keys(SECTIONS).filter((n) => wanted.includes(n)) : Object.keys(SECTIONS);
  const t0 = clock();
  const rows = [];
  const details = [];
  const failures = [];
  const ctx = { dir: tempDir('teamux-mux-bench-'), tag: RUN_TAG.replace(/[^a-z0-9]/gi, ''), ...OUTER };
  const { from, builtMs } = await snapshotBuild(ctx.dir);
  process.stdout.write(`teamux multiplexer benchmark\n${machineLine()}\n${tmuxVersion()}; outer terminal ${OUTER.cols}x${OUTER.rows} for all; run tag ${RUN_TAG}\n`);
  process.stdout.write(`teamux under test: ${path.join(from, 'dist')} (copied at start; newest file written ${new Date(builtMs).toISOString().replace('T', ' ').slice(0, 19)} UTC); panes start with ${existsSync(path.join(build.root, 'build', 'Release', 'teamux_pty_spawn.node')) ? 'posix_spawn' : 'forkpty (the native part is not built: npm run build:native)'}\n`);
  try {
    for (const name of names) {
      const s0 = clock();
      try {
        const r = await SECTIONS[name](ctx);
        rows.push(...r.rows);
        details.push(...r.details, `${name}: section took ${num((clock() - s0) / 1000, 1)} s`);
        printTable(`${name}`, HEAD, r.rows);
      } catch (err) {
        failures.push(name);
        const msg = err instanceof Error ? (process.env.BENCH_DEBUG ? err.stack : err.message) : String(err);
        rows.push([name, 'FAILED TO RUN', '', '', '', '', 'ERROR']);
        details.push(`${name}: failed: ${msg}`);
        process.stdout.write(`\n${name}: failed: ${msg}\n`);
      }
    }
  } finally {
    cleanupAll();
  }
  printTable('Summary (ratio = teamux / reference; lower is better for every measure)', HEAD, rows);
  process.stdout.write(`\nDetails\n${details.map((d) => `  ${d}`).join('\n')}\n`);
  const left = taggedPids();
  process.stdout.write(`\ntotal run time ${num((clock() - t0) / 1000, 1)} s; tmux servers, processes (${left.length} left) and temp folders cleaned up.\n`);
  return failures.length > 0 ? 1 : 0;
}

try {
  process.exitCode = await main();
} catch (err) {
  cleanupAll();
  process.stderr.write(`bench/mux: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
}
