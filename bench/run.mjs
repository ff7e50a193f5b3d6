#!/usr/bin/env node
/**
 * `npm run bench`: the team-store benchmark (bench/store.mjs), the MCP server benchmark
 * (bench/mcp.mjs), the web view's (bench/web.mjs, headless Chromium), then the multiplexer benchmark (bench/mux.mjs), each as a child process that
 * inherits this terminal. When dist/ has not been built, it is built first with the checkout's own
 * TypeScript. Every benchmark runs even if an earlier one fails; the exit status is non-zero when the
 * build or any benchmark fails. Arguments are passed to bench/mux.mjs (its sections:
 * `npm run bench -- throughput latency`; `--quick` goes to bench/scale.mjs, the scaling rows). The store and mux benchmarks measure their
 * own frozen copy of dist/, so a rebuild by someone else during the run does not change the figures.
 *
 * Ctrl-C reaches the running benchmark directly (same process group) and it cleans up after itself;
 * a signal sent to this process alone is passed on to the benchmark. Either way nothing further runs.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));

/** The steps, in order; `when` decides whether a step is needed at all. */
const STEPS = [
  {
    name: 'build',
    argv: [path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'],
    when: () => !existsSync(path.join(REPO, 'dist', 'cli', 'main.js')),
    fatal: true,
  },
  { name: 'store', argv: [path.join(REPO, 'bench', 'store.mjs')] },
  { name: 'nats-store', argv: [path.join(REPO, 'bench', 'nats-store.mjs')] },
  { name: 'scale', argv: [path.join(REPO, 'bench', 'scale.mjs'), ...(process.argv.includes('--quick') ? ['--quick'] : [])] },
  { name: 'mcp', argv: [path.join(REPO, 'bench', 'mcp.mjs')] },
  { name: 'web', argv: [path.join(REPO, 'bench', 'web.mjs'), ...(process.argv.includes('--quick') ? ['--quick'] : [])] },
  { name: 'mux', argv: [path.join(REPO, 'bench', 'mux.mjs'), ...process.argv.slice(2).filter((a) => a !== '--quick')] },
];

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

// the step running now, and the signal that stopped the run (if any)
let current = null;
let stoppedBy = null;

for (const sig of SIGNALS) {
  process.on(sig, () => {
    stoppedBy ??= sig;
    // A terminal's Ctrl-C has reached the child already; a second delivery is harmless.
    current?.kill(sig);
  });
}

/** Run `node argv...` in the repository with this terminal; resolves with a one-word outcome. */
function run(argv) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, { cwd: REPO, stdio: 'inherit' });
    current = child;
    child.on('error', (err) => {
      current = null;
      resolve(`failed to start (${err.message})`);
    });
    child.on('exit', (code, signal) => {
      current = null;
      resolve(signal ? `killed by ${signal}` : code === 0 ? 'ok' : `exit ${code}`);
    });
  });
}

async function main() {
  const outcomes = [];
  for (const step of STEPS) {
    if (stoppedBy) break;
    if (step.when && !step.when()) continue;
    if (step.name === 'build') process.stderr.write('bench: dist/ is not built; building it first (tsc -p tsconfig.json)\n');
    const outcome = await run(step.argv);
    outcomes.push({ name: step.name, outcome });
    if (outcome !== 'ok' && step.fatal) break;
  }
  const failed = outcomes.filter((o) => o.outcome !== 'ok');
  const summary = outcomes.map((o) => `${o.name} ${o.outcome}`).join(', ');
  process.stderr.write(`\nbench: ${summary}${stoppedBy ? `; stopped by ${stoppedBy}` : ''}\n`);
  if (stoppedBy) return 128 + (stoppedBy === 'SIGINT' ? 2 : stoppedBy === 'SIGTERM' ? 15 : 1);
  return failed.length > 0 ? 1 : 0;
}

process.exitCode = await main();
