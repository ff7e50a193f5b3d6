// Test helpers: a throw-away team folder, and the CLI run in-process or as a real child process.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/main.js';
import { initTeam, type MemberSpec } from '../../src/store/init.js';
import type { TeamStore } from '../../src/store/team.js';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = path.join(REPO, 'bin', 'teamux');

/** A temp folder removed by the returned cleanup. */
export function tempDir(prefix = 'teamux-test-'): { dir: string; cleanup: () => Promise<void> } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => removeTree(dir) };
}

/**
 * Remove a test's folder. A process being stopped may still write its last lines there (re-creating
 * a file while the folder goes: ENOTEMPTY), so failures are retried for up to 15 s; the first attempt
 * runs at once, so a caller that does not await still removes a quiet folder synchronously. A folder
 * that cannot be removed is reported on stderr, never fails the test that used it.
 */
function removeTree(dir: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  const attempt = (): Promise<void> => {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
      return Promise.resolve();
    } catch (err) {
      if (Date.now() > deadline) {
        process.stderr.write(`warning: could not remove ${dir}: ${(err as Error).message}\n`);
        return Promise.resolve();
      }
      return new Promise((r) => setTimeout(r, 200)).then(attempt);
    }
  };
  return attempt();
}

/** Members named lead + the given teammates. */
export function members(names: string[], opts: Partial<MemberSpec> = {}): MemberSpec[] {
  return [
    { name: 'lead', role: 'lead', kind: 'lead', runtime: 'command', speaksProtocol: true, planRequired: false, planApprover: null, tools: null },
    ...names.map((n) => ({ name: n, role: 'worker', kind: 'teammate' as const, runtime: 'command' as const, speaksProtocol: true, planRequired: false, planApprover: 'lead', tools: null, ...opts })),
  ];
}

/** A fresh team folder with a lead and teammates. */
export async function makeTeam(names: string[], opts: Partial<MemberSpec> = {}): Promise<{ store: TeamStore; dir: string; cleanup: () => Promise<void> }> {
  const tmp = tempDir();
  const dir = path.join(tmp.dir, '.teamux', 'test');
  const { store } = await initTeam(dir, { name: 'test', root: tmp.dir, layoutFile: null, members: members(names, opts), seedTasks: [] });
  return { store, dir, cleanup: tmp.cleanup };
}

/** Run the CLI in-process and capture its output. */
export async function cli(argv: string[], env: Record<string, string> = {}, cwd = REPO): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => { out += t + '\n'; }, err: (t) => { err += t + '\n'; }, env: { ...env }, cwd });
  return { code, out, err };
}

/** Run bin/teamux as a real child process. */
export function cliProcess(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...argv], { env: { ...process.env, ...env }, cwd: REPO }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, out: stdout, err: stderr });
    });
  });
}

/** Wait for a condition with a deadline (never a bare sleep). */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, timeoutMs = 10_000, everyMs = 25): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
