/**
 * Cross-process locks from proper-lockfile (mkdir-based, with stale-lock detection and a heartbeat
 * on the lock's mtime), wrapped so that a critical section always releases its lock.
 */
import { lstatSync } from 'node:fs';
import lockfile from 'proper-lockfile';
import * as path from 'node:path';
import { checkFolderSync, UnsafePathError } from './fsx.js';

// About 10 s of retries at most (300 tries, backing off to 40 ms); the lock is stale after 5 s
// without its holder refreshing it (every second).
const LOCK_OPTIONS = {
  realpath: false,
  stale: 5_000,
  update: 1_000,
  retries: { retries: 300, factor: 1.3, minTimeout: 1, maxTimeout: 40, randomize: true },
} as const;

/** The lock could not be taken in time: another process holds it (exit 3 on the CLI). */
export class LockBusyError extends Error {
  constructor(readonly target: string) {
    super(`${target} is locked by another process; try again`);
  }
}

/**
 * Called when a held lock was taken over as stale (its holder stalled for more than 5 s). The default
 * would throw from a timer and kill the process; the critical sections are short and write
 * atomically, so the holder finishes its work and the next compare-and-set sorts out any overlap.
 */
function onCompromised(err: Error): void {
  process.emitWarning(`teamux lock compromised: ${err.message}`);
}

/**
 * Refuse a lock folder that is a link (the lock's mtime heartbeat would touch whatever it points at),
 * or one whose parent is not a real folder (the lock would be made outside the team folder).
 */
function checkLockPath(target: string): void {
  checkFolderSync(path.dirname(target));
  try {
    if (lstatSync(`${target}.lock`).isSymbolicLink()) throw new UnsafePathError(`${target}.lock`, 'is a symbolic link');
  } catch (err) {
    if (err instanceof UnsafePathError) throw err;
  }
}

/** Run `fn` while holding the lock on `target` (a file or folder; it need not exist). */
export async function withLock<T>(target: string, fn: () => Promise<T>): Promise<T> {
  checkLockPath(target);
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(target, { ...LOCK_OPTIONS, lockfilePath: `${target}.lock`, onCompromised });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') throw new LockBusyError(target);
    throw err;
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}

/** Run `fn` under the lock if it is free right now; undefined when another process holds it. */
export async function tryWithLock<T>(target: string, fn: () => Promise<T>): Promise<T | undefined> {
  checkLockPath(target);
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(target, { ...LOCK_OPTIONS, retries: 0, lockfilePath: `${target}.lock`, onCompromised });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') return undefined;
    throw err;
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}
