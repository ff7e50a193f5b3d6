/**
 * Cross-process locks from proper-lockfile (mkdir-based, with stale-lock detection and a heartbeat
 * on the lock's mtime), wrapped so that a critical section always releases its lock. The CLI's short
 * paths take the same locks with store/dir-lock.ts, which speaks the same protocol without the package.
 */
import lockfile from 'proper-lockfile';
import { checkLockPath, LockBusyError } from './dir-lock.js';
import { LOCK_PROTOCOL } from './lock-protocol.js';

export { LockBusyError };

// About 10 s of retries at most; the lock is stale after 5 s without its holder refreshing it (every
// second): lock-protocol.ts's figures.
const LOCK_OPTIONS = {
  realpath: false,
  stale: LOCK_PROTOCOL.staleMs,
  update: LOCK_PROTOCOL.updateMs,
  retries: { retries: LOCK_PROTOCOL.retries, factor: LOCK_PROTOCOL.factor, minTimeout: LOCK_PROTOCOL.minTimeoutMs, maxTimeout: LOCK_PROTOCOL.maxTimeoutMs, randomize: true },
} as const;

/**
 * Called when a held lock was taken over as stale (its holder stalled for more than 5 s). The default
 * would throw from a timer and kill the process; the critical sections are short and write
 * atomically, so the holder finishes its work and the next compare-and-set sorts out any overlap.
 */
function onCompromised(err: Error): void {
  process.emitWarning(`teamux lock compromised: ${err.message}`);
}

/**
 * This process's holders of each lock, in turn: a section of this process waits for the one before
 * it here, on a promise, instead of polling the lock folder with backoff against its own process (as
 * the panes starting at once did, each recording itself in team.json). The wait is bounded like the
 * lock's retries: a section that takes the same lock again inside itself fails as it did before
 * (LockBusyError), it does not hang.
 */
const turns = new Map<string, Promise<void>>();
const TURN_WAIT_MS = 10_000;

/** Run `fn` once this process's earlier holders of the lock on `target` are done (TURN_WAIT_MS at most). */
async function inTurn<T>(target: string, fn: () => Promise<T>): Promise<T> {
  const before = turns.get(target);
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  const tail = before ? before.then(() => mine) : mine;
  turns.set(target, tail);
  try {
    if (before) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([before, new Promise<void>((resolve) => (timer = setTimeout(resolve, TURN_WAIT_MS)))]);
      clearTimeout(timer);
    }
    return await fn();
  } finally {
    done();
    if (turns.get(target) === tail) turns.delete(target);
  }
}

/** Run `fn` while holding the lock on `target` (a file or folder; it need not exist). */
export async function withLock<T>(target: string, fn: () => Promise<T>): Promise<T> {
  checkLockPath(target);
  return inTurn(target, async () => {
    const release = await acquire(target, true);
    if (!release) throw new LockBusyError(target);
    return holding(release, fn);
  });
}

/** Run `fn` under the lock if it is free right now; undefined when another process holds it. */
export async function tryWithLock<T>(target: string, fn: () => Promise<T>): Promise<T | undefined> {
  checkLockPath(target);
  // Held (or waited for) by this process: not free right now.
  if (turns.has(target)) return undefined;
  return inTurn(target, async () => {
    const release = await acquire(target, false);
    return release ? holding(release, fn) : undefined;
  });
}

/** Take the lock folder (with the retries of LOCK_OPTIONS when `wait`, else once); null while another holds it. */
async function acquire(target: string, wait: boolean): Promise<(() => Promise<void>) | null> {
  try {
    return await lockfile.lock(target, { ...LOCK_OPTIONS, ...(wait ? {} : { retries: 0 }), lockfilePath: `${target}${LOCK_PROTOCOL.suffix}`, onCompromised });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') return null;
    throw err;
  }
}

/** Run `fn` and let the lock go, whatever it does. */
async function holding<T>(release: () => Promise<void>, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}
