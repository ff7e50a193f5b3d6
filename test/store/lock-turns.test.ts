// withLock inside one process: sections on the same lock wait for each other in the order they asked
// (a queue in the process, before the lock folder), never overlap, and a lock that is free is taken
// at once; tryWithLock reports a lock this process holds as busy. Real files, real proper-lockfile.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tryWithLock, withLock } from '../../src/store/lock.js';
import { tempDir } from '../helpers/team.js';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

describe('lock turns in one process', () => {
  it('lock.sections-of-one-process-take-turns-in-order', async () => {
    const tmp = tempDir('teamux-lock-turns-');
    cleanup.push(tmp.cleanup);
    const target = path.join(tmp.dir, 'team.json');
    const log: string[] = [];
    let inside = 0;
    let most = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: 12 }, (_, i) => withLock(target, async () => {
      inside++;
      most = Math.max(most, inside);
      log.push(`in ${i}`);
      // The lock folder exists while a section runs: the lock is really held, not only queued.
      expect(existsSync(`${target}.lock`)).toBe(true);
      await new Promise((r) => setTimeout(r, 2));
      log.push(`out ${i}`);
      inside--;
    })));
    const took = performance.now() - started;
    expect(most).toBe(1);
    expect(log).toEqual(Array.from({ length: 12 }, (_, i) => [`in ${i}`, `out ${i}`]).flat());
    expect(existsSync(`${target}.lock`)).toBe(false);
    // Twelve sections of ~2 ms each, handed over without polling backoff (generous for a loaded machine).
    expect(took).toBeLessThan(5_000);
  });

  it('lock.try-reports-a-lock-this-process-holds-as-busy', async () => {
    const tmp = tempDir('teamux-lock-turns-');
    cleanup.push(tmp.cleanup);
    const target = path.join(tmp.dir, 'board');
    const inner = await withLock(target, async () => tryWithLock(target, async () => 'ran'));
    expect(inner).toBeUndefined();
    // Free again: taken at once.
    expect(await tryWithLock(target, async () => 'ran')).toBe('ran');
    // A section that fails still lets the next one in.
    await expect(withLock(target, async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(await withLock(target, async () => 'next')).toBe('next');
  });
});
