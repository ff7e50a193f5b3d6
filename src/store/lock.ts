/**
 * Cross-process locks from proper-lockfile (mkdir-based, with stale-lock detection and a heartbeat
 * on the lock's mtime), wrapped so that a critical section always releases its lock.
 */
import lockfile from 'proper-lockfile';

const LOCK_OPTIONS = {
  realpath: false,
  stale: 5_000,
  update: 1_000,
  retries: { retries: 2_000, factor: 1.3, minTimeout: 1, maxTimeout: 25, randomize: true },
} as const;

/** Run `fn` while holding the lock on `target` (a file or folder; it need not exist). */
export async function withLock<T>(target: string, fn: () => Promise<T>): Promise<T> {
  const release = await lockfile.lock(target, { ...LOCK_OPTIONS, lockfilePath: `${target}.lock` });
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}
