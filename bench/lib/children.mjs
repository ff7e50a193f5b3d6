/**
 * Child processes for benchmarks. A worker is a real process that prints `ready` when it has set
 * itself up, waits for `go` on stdin (a start barrier, so start-up is not measured), does its work and
 * prints one `result <json>` line. The parent side starts workers, opens the barrier for all of them
 * at once and collects results; the child side is childReady() and childResult(). runCommand() runs
 * a command to completion and times it.
 */
import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { clock } from './timing.mjs';

const live = new Set();

/** Start a worker process; its stdout is read line by line for `ready` and `result`. */
export function startWorker(command, args, options = {}) {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: options.env ?? process.env, cwd: options.cwd });
  live.add(child);
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d.toString(); });
  let onReady;
  let onResult;
  const ready = new Promise((resolve) => { onReady = resolve; });
  const result = new Promise((resolve) => { onResult = resolve; });
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    if (line === 'ready') onReady(clock());
    else if (line.startsWith('result ')) onResult({ at: clock(), value: JSON.parse(line.slice(7)) });
  });
  const exited = new Promise((resolve) => {
    child.on('close', (code, signal) => {
      live.delete(child);
      resolve({ code, signal, stderr });
    });
  });
  const fail = exited.then((e) => { throw new Error(`worker ${args.join(' ')} exited (${e.signal ?? e.code}) before its result${e.stderr ? `:\n${e.stderr.trim()}` : ''}`); });
  fail.catch(() => undefined);
  return {
    child,
    /** Resolves with the time the worker said `ready`; rejects if it exits first. */
    ready: Promise.race([ready, fail]),
    /** Resolves with { at, value } when the worker prints its result; rejects if it exits first. */
    result: Promise.race([result, fail]),
    /** Resolves with { code, signal, stderr } when the process has closed. */
    exited,
    go() { child.stdin.write('go\n'); },
  };
}

/**
 * Start workers together: wait until every one is ready, then release them all. Returns the time
 * of release, the time the last result arrived, and each worker's result value. Workers that have
 * not finished within `timeoutMs` are killed and the race fails.
 */
export async function raceWorkers(workers, timeoutMs = 120_000) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => {
      for (const w of workers) w.child.kill('SIGKILL');
      reject(new Error(`workers did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([deadline, (async () => {
      await Promise.all(workers.map((w) => w.ready));
      const start = clock();
      for (const w of workers) w.go();
      const results = await Promise.all(workers.map((w) => w.result));
      const end = Math.max(...results.map((r) => r.at));
      await Promise.all(workers.map((w) => w.exited));
      return { start, end, wallMs: end - start, values: results.map((r) => r.value) };
    })()]);
  } finally {
    clearTimeout(timer);
  }
}

/** Kill every worker still running (for cleanup after a failure). */
export function killWorkers() {
  for (const child of live) child.kill('SIGKILL');
}

/** Child side: say `ready` and resolve when the parent writes `go`. */
export function childReady() {
  return new Promise((resolve) => {
    const lines = createInterface({ input: process.stdin });
    lines.on('line', (line) => {
      if (line.trim() === 'go') {
        lines.close();
        // Nothing more comes on stdin; an open stdin would keep this process alive after its work.
        process.stdin.destroy();
        resolve(clock());
      }
    });
    process.stdout.write('ready\n');
  });
}

/** Child side: report the result as one line. */
export function childResult(value) {
  process.stdout.write(`result ${JSON.stringify(value)}\n`);
}

/** Run a command to completion; resolves with its exit code, output and duration (never rejects). */
export function runCommand(command, args, options = {}) {
  const start = clock();
  return new Promise((resolve) => {
    execFile(command, args, { env: options.env ?? process.env, cwd: options.cwd, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr, ms: clock() - start });
    });
  });
}
