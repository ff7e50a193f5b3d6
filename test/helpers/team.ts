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
export function tempDir(prefix = 'teamux-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Members named lead + the given teammates. */
export function members(names: string[], opts: Partial<MemberSpec> = {}): MemberSpec[] {
  return [
    { name: 'lead', role: 'lead', kind: 'lead', runtime: 'command', speaksProtocol: true, planRequired: false, planApprover: null, tools: null },
    ...names.map((n) => ({ name: n, role: 'worker', kind: 'teammate' as const, runtime: 'command' as const, speaksProtocol: true, planRequired: false, planApprover: 'lead', tools: null, ...opts })),
  ];
}

/** A fresh team folder with a lead and teammates. */
export async function makeTeam(names: string[], opts: Partial<MemberSpec> = {}): Promise<{ store: TeamStore; dir: string; cleanup: () => void }> {
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
