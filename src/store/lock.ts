/**
 * Cross-process locks from proper-lockfile (mkdir-based, with stale-lock detection and a heartbeat
 * on the lock's mtime), wrapped so that a critical section always releases its lock. The CLI's short
 * paths take the same locks with store/dir-lock.ts, which speaks the same protocol without the package.
 */
import lockfile from 'proper-lockfile';
import { checkLockPath, LockBusyError } from './dir-lock.js';

export { LockBusyError };

// About 10 s of retries at most (300 tries, backing off to 40 ms); the lock is stale after 5 s
// without its holder refreshing it (every second).
const LOCK_OPTIONS = {
  realpath: false,
  stale: 5_000,
  update: 1_000,
  retries: { retries: 300, factor: 1.3, minTimeout: 1, maxTimeout: 40, randomize: true },
} as const;

/**
 * Called when a held lock was taken over as stale (its holder stalled for more than 5 s). The default
 * would throw from a timer and kill the process; the critical sections are short and write
 * atomically, so the holder finishes its work and the next compare-and-set sorts out any overlap.
 */
function onCompromised(err: Error): void {
  process.emitWarning(`teamux lock compromised: ${err.message}`);
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
