// Real child processes for the JetStream store tests: the workers in test/workers, with their output
// collected line by line, killed (SIGKILL) by the test's cleanup if still running.
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { REPO } from '../../helpers/team.js';

/** A running worker. */
export interface Worker {
  child: ChildProcess;
  out: () => string;
  lines: () => string[];
  exit: Promise<number | null>;
}

const running: ChildProcess[] = [];

/** Start test/workers/NAME with args. */
export function worker(name: string, args: string[]): Worker {
  const child = spawn(process.execPath, [path.join(REPO, 'test', 'workers', name), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => {
    if (code !== 0 && code !== null) process.stderr.write(`${name} exited ${code}: ${err}\n`);
    resolve(code);
  }));
  return { child, out: () => out, lines: () => out.split('\n').filter(Boolean), exit };
}

/** Kill every worker still running. */
export function killWorkers(): void {
  for (const c of running.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}
