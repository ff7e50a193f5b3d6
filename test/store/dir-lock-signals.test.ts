/**
 * A short-path claim (store/quick-claim.ts over store/dir-lock.ts) killed by SIGINT, SIGTERM or SIGHUP
 * while it holds a task's lock removes the lock folder and dies of that signal, as proper-lockfile does
 * with signal-exit, instead of leaving the lock until it goes stale. The claim is a real `teamux task
 * claim` child held at a real slow point: a task blocked by 40,000 tasks, each read under its lock.
 * Beside proper-lockfile (whose signal-exit also listens) both locks go and the process still dies; a
 * process that handles the signal itself decides, and its exit removes the lock.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, makeTeam, REPO, tempDir, waitFor } from '../helpers/team.js';

let cleanup: Array<() => Promise<void>> = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const c of cleanup.splice(0)) await c();
});

/** Start a child and collect how it ends and what it printed. */
/** test/workers/dir-lock-holder.mjs in `mode` on a board in a fresh temp folder, once it says it holds its lock(s). */
async function holding(mode: string, what: string): Promise<{ target: string; holder: ReturnType<typeof start> }> {
  const d = tempDir();
  cleanup.push(d.cleanup);
  const target = path.join(d.dir, 'board');
  const holder = start([path.join(REPO, 'test', 'workers', 'dir-lock-holder.mjs'), target, mode]);
  await waitFor(() => holder.out().includes('held') || holder.child.exitCode !== null, what, 60_000);
  return { target, holder };
}

function start(argv: string[]): { child: ChildProcess; out: () => string; ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, TEAMUX_TEAM_DIR: '' } });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  // A process the signal did not end is a failure of its own (not a test timeout): 60 s is ample at any load.
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    const deadline = setTimeout(() => reject(new Error(`${argv.join(' ')} was still running 60 s after it was signalled or started`)), 60_000);
    child.on('exit', (code, signal) => {
      clearTimeout(deadline);
      resolve({ code, signal });
    });
  });
  ended.catch(() => undefined);
  return { child, out: () => out, ended };
}

describe('dir-lock on a fatal signal', () => {
  it('dir-lock.a-claim-killed-by-a-signal-while-holding-the-lock-removes-it-and-dies-of-the-signal', async () => {
    const t = await makeTeam(['amy']);
    cleanup.push(t.cleanup);
    const created = await t.store.tasks.create({ subject: 'blocked by many' });
    expect(created.ok).toBe(true);
    const file = t.store.paths.task('1');
    const task = JSON.parse(readFileSync(file, 'utf8')) as { blockedBy: string[] };
    task.blockedBy = Array.from({ length: 40_000 }, (_, i) => String(i + 2));
    writeFileSync(file, JSON.stringify(task, null, 2) + '\n');
    const lock = `${file}.lock`;
    for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      const claim = start([BIN, 'task', 'claim', '1', '--as', 'amy', '--team-dir', t.dir]);
      // The claim holds the task's lock while it reads the blockers: signal it then.
      await waitFor(() => existsSync(lock) || claim.child.exitCode !== null, `${sig}: the claim holding ${lock}`, 60_000, 2);
      expect(existsSync(lock), `${sig}: the claim ended before it was seen holding the lock`).toBe(true);
      claim.child.kill(sig);
      const end = await claim.ended;
      expect(end, `${sig}: the exit status says the signal`).toEqual({ code: null, signal: sig });
      // Gone when the process is: not left for the 5 s stale check.
      expect(existsSync(lock), `${sig}: the lock folder is removed`).toBe(false);
    }
    // Nothing was claimed.
    const after = await t.store.tasks.get('1');
    expect(after.ok && after.value.owner).toBe(null);
  }, 240_000);

  it('dir-lock.beside-proper-lockfile-both-locks-go-and-the-process-still-dies', async () => {
    const { target, holder } = await holding('with-lockfile', 'the holder holding both locks');
    expect(existsSync(`${target}.lock`) && existsSync(`${target}-2.lock`)).toBe(true);
    holder.child.kill('SIGTERM');
    expect(await holder.ended).toEqual({ code: null, signal: 'SIGTERM' });
    expect(existsSync(`${target}.lock`)).toBe(false);
    expect(existsSync(`${target}-2.lock`)).toBe(false);
  }, 120_000);

  it('dir-lock.a-process-that-handles-the-signal-itself-decides-and-its-exit-removes-the-lock', async () => {
    const { target, holder } = await holding('own-handler', 'the holder holding the lock');
    holder.child.kill('SIGTERM');
    // Its own handler ran and chose the exit code; the lock went with the exit.
    expect(await holder.ended).toEqual({ code: 7, signal: null });
    expect(holder.out()).toContain('cleaning up');
    expect(existsSync(`${target}.lock`)).toBe(false);
  }, 120_000);
});
