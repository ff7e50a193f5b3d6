// store/dir-lock.ts speaks proper-lockfile's protocol (store/lock.ts): the two exclude each other in
// both directions, across real processes (a counter incremented under the lock by processes using
// one or the other never loses an update); a waiting taker gets the lock once it is released; a
// holder keeps its lock fresh past the stale time; a stale lock is taken over; a process that exits
// holding the lock leaves no lock folder behind.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tryWithDirLock, withDirLock } from '../../src/store/dir-lock.js';
import { tryWithLock, withLock } from '../../src/store/lock.js';
import { REPO, tempDir, waitFor } from '../helpers/team.js';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

function folder(): string {
  const t = tempDir();
  cleanup.push(t.cleanup);
  return t.dir;
}

/** A child process that adds 1 to the counter file `times` times, each under the lock of `kind`. */
function counter(kind: 'dir' | 'proper', file: string, times: number): Promise<void> {
  const mod = path.join(REPO, 'dist', 'store', kind === 'dir' ? 'dir-lock.js' : 'lock.js');
  const fn = kind === 'dir' ? 'withDirLock' : 'withLock';
  const script = `
    const { ${fn}: lock } = await import(${JSON.stringify(mod)});
    const fs = await import('node:fs');
    for (let i = 0; i < ${times}; i++) {
      await lock(${JSON.stringify(file)}, async () => {
        const n = Number(fs.readFileSync(${JSON.stringify(file)}, 'utf8'));
        await new Promise((r) => setTimeout(r, 2));
        fs.writeFileSync(${JSON.stringify(file)}, String(n + 1));
      });
    }`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], (error, _out, err) => (error ? reject(new Error(err)) : resolve()));
  });
}

describe('dir-lock', () => {
  it('dir-lock.and-proper-lockfile-exclude-each-other-across-processes', async () => {
    const file = path.join(folder(), 'count');
    writeFileSync(file, '0');
    await Promise.all([counter('dir', file, 25), counter('proper', file, 25), counter('dir', file, 25), counter('proper', file, 25)]);
    expect(readFileSync(file, 'utf8')).toBe('100');
    expect(existsSync(`${file}.lock`)).toBe(false);
  }, 180_000);

  it('dir-lock.a-held-lock-is-busy-for-the-other-and-taken-once-released', async () => {
    const target = path.join(folder(), 'x');
    await withLock(target, async () => {
      expect(await tryWithDirLock(target, async () => 'taken')).toBeUndefined();
    });
    await withDirLock(target, async () => {
      expect(await tryWithLock(target, async () => 'taken')).toBeUndefined();
      expect(await tryWithDirLock(target, async () => 'taken')).toBeUndefined();
    });
    // A taker that waits gets the lock once the holder lets go.
    let release!: () => void;
    const held = withLock(target, () => new Promise<void>((r) => { release = r; }));
    await waitFor(() => existsSync(`${target}.lock`), 'the lock folder');
    const waiting = withDirLock(target, async () => 'mine');
    setTimeout(() => release(), 300);
    expect(await waiting).toBe('mine');
    await held;
    expect(existsSync(`${target}.lock`)).toBe(false);
  }, 60_000);

  it('dir-lock.a-holder-stays-fresh-and-a-stale-lock-is-taken-over', async () => {
    const target = path.join(folder(), 'y');
    await withDirLock(target, async () => {
      const first = statSync(`${target}.lock`).mtimeMs;
      // Past the stale time (5 s) the holder's lock is still fresh: proper-lockfile may not take it.
      await waitFor(() => Date.now() - first > 6_000, 'six seconds of holding', 20_000, 200);
      expect(statSync(`${target}.lock`).mtimeMs).toBeGreaterThan(first);
      expect(await tryWithLock(target, async () => 'taken')).toBeUndefined();
    });
    // A lock left by a process that died (its mtime 10 s old) is stale: taken over at once.
    mkdirSync(`${target}.lock`);
    const old = new Date(Date.now() - 10_000);
    utimesSync(`${target}.lock`, old, old);
    expect(await tryWithDirLock(target, async () => 'taken')).toBe('taken');
  }, 60_000);

  it('dir-lock.a-process-that-exits-holding-the-lock-leaves-none-behind', async () => {
    const target = path.join(folder(), 'z');
    const mod = path.join(REPO, 'dist', 'store', 'dir-lock.js');
    await new Promise<void>((resolve, reject) => {
      execFile(process.execPath, ['--input-type=module', '-e', `const { withDirLock } = await import(${JSON.stringify(mod)}); await withDirLock(${JSON.stringify(target)}, async () => { process.exit(0); });`], (error) => (error ? reject(error) : resolve()));
    });
    expect(existsSync(`${target}.lock`)).toBe(false);
  }, 60_000);
});
