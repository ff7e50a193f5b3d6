/**
 * Cross-process locks on proper-lockfile's protocol, without the library: the lock on `target` is the
 * folder `${target}.lock`, taken with mkdir (atomic), kept fresh by moving its mtime every second,
 * stale after 5 s without a move (then anyone may remove it and take it), released with rmdir. The
 * CLI's short paths use it so a claim does not load proper-lockfile and its three packages; store/
 * lock.ts (proper-lockfile, with the same timings) and this exclude each other, which
 * test/store/dir-lock.test.ts checks in both directions. It owns the set of locks this process holds,
 * removed on exit and on SIGINT, SIGTERM and SIGHUP as proper-lockfile does (with signal-exit): a
 * process in which nothing else handles the signal removes its lock folders and dies of the signal
 * (re-raised, so its exit status says so), instead of leaving the lock to go stale.
 */
import { lstatSync, mkdirSync, rmdirSync, statSync } from 'node:fs';
import { stat, utimes } from 'node:fs/promises';
import * as path from 'node:path';
import { checkFolderSync, UnsafePathError } from './fsx.js';
import { LOCK_PROTOCOL } from './lock-protocol.js';

/** A lock whose mtime has not moved for this long is stale (lock-protocol.ts). */
export const LOCK_STALE_MS = LOCK_PROTOCOL.staleMs;
const { updateMs: UPDATE_MS, retries: RETRIES, suffix: SUFFIX } = LOCK_PROTOCOL;

/** The lock could not be taken in time: another process holds it (exit 3 on the CLI). */
export class LockBusyError extends Error {
  constructor(readonly target: string) {
    super(`${target} is locked by another process; try again`);
  }
}

/**
 * Refuse a lock folder that is a link (the lock's mtime heartbeat would touch whatever it points at),
 * or one whose parent is not a real folder (the lock would be made outside the team folder).
 */
export function checkLockPath(target: string): void {
  checkFolderSync(path.dirname(target));
  try {
    if (lstatSync(`${target}${SUFFIX}`).isSymbolicLink()) throw new UnsafePathError(`${target}${SUFFIX}`, 'is a symbolic link');
  } catch (err) {
    if (err instanceof UnsafePathError) throw err;
  }
}

/** Lock folders this process holds, removed if it exits holding them. */
const held = new Set<string>();
let hooked = false;

/** The signals that end a process unless it handles them (signal-exit's list, the ones a person or a supervisor sends). */
const FATAL_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Remove every lock folder this process holds, at once (on exit or a fatal signal). */
function removeHeldSync(): void {
  for (const d of held) {
    try {
      rmdirSync(d);
    } catch {
      // Gone already.
    }
  }
  held.clear();
}

/**
 * How many of a signal's listeners belong to signal-exit (loaded with proper-lockfile by store/lock.ts):
 * one per loaded copy. Its listener acts only when it is alone, so it must not count as someone else
 * handling the signal, or neither would end the process.
 */
function signalExitListeners(): number {
  const p = process as unknown as Record<string | symbol, { count?: unknown } | undefined>;
  const count = (e: { count?: unknown } | undefined): number => (typeof e?.count === 'number' ? e.count : 0);
  return count(p.__signal_exit_emitter__) + count(p[Symbol.for('signal-exit emitter')]);
}

/** On a fatal signal nothing else handles: remove the held locks and re-raise it with our listeners gone. */
function onFatalSignal(sig: NodeJS.Signals): void {
  const others = process.listeners(sig).filter((l) => l !== signalListeners.get(sig)).length;
  // Someone else decides what the signal means (the screen cleans up and exits): the exit hook removes the locks then.
  if (others > signalExitListeners()) return;
  removeHeldSync();
  for (const [s, listener] of signalListeners) process.removeListener(s, listener);
  signalListeners.clear();
  process.kill(process.pid, sig);
}

const signalListeners = new Map<NodeJS.Signals, () => void>();

/**
 * Remove held locks on exit and on the fatal signals, from before the first lock folder is made until
 * the process ends. Listening only while a lock is held would leave two gaps: a signal delivered
 * between the mkdir and the listener (the default action kills at once, the folder stays), and one
 * pending when the listener is removed (it would be dropped, and the process live on).
 */
function hookProcess(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', removeHeldSync);
  for (const sig of FATAL_SIGNALS) {
    const listener = (): void => onFatalSignal(sig);
    signalListeners.set(sig, listener);
    process.on(sig, listener);
  }
}

/** Run `fn` holding the lock on `target`, waiting about 10 s for it at most (LockBusyError). */
export async function withDirLock<T>(target: string, fn: () => Promise<T>): Promise<T> {
  const release = await acquire(target, RETRIES);
  if (!release) throw new LockBusyError(target);
  try {
    return await fn();
  } finally {
    await release();
  }
}

/** Run `fn` under the lock if it is free right now; undefined when another process holds it. */
export async function tryWithDirLock<T>(target: string, fn: () => Promise<T>): Promise<T | undefined> {
  const release = await acquire(target, 0);
  if (!release) return undefined;
  try {
    return await fn();
  } finally {
    await release();
  }
}

/** Take the lock, retrying `retries` times while it is busy; its release, or null when it stayed busy. */
async function acquire(target: string, retries: number): Promise<(() => Promise<void>) | null> {
  checkLockPath(target);
  const dir = `${target}${SUFFIX}`;
  hookProcess();
  for (let attempt = 0; ; attempt++) {
    if (take(dir)) break;
    if (attempt >= retries) return null;
    // The retry package's back-off as proper-lockfile is configured (lock-protocol.ts), randomized.
    await new Promise((r) => setTimeout(r, Math.min(LOCK_PROTOCOL.maxTimeoutMs, Math.round((Math.random() + 1) * LOCK_PROTOCOL.minTimeoutMs * LOCK_PROTOCOL.factor ** attempt))));
  }
  held.add(dir);
  let mtime = statSync(dir).mtimeMs;
  let lastUpdate = Date.now();
  let released = false;
  // Keep the lock fresh. A lock whose mtime someone else moved, or that went away, was taken over as
  // stale: as store/lock.ts's onCompromised, say so and go on (the critical sections are short and
  // write atomically; the next compare-and-set sorts out any overlap).
  const refresh = async (): Promise<void> => {
    let problem: string | null = null;
    try {
      if ((await stat(dir)).mtimeMs !== mtime) problem = 'Unable to update lock within the stale threshold';
      else {
        const now = new Date();
        await utimes(dir, now, now);
        mtime = (await stat(dir)).mtimeMs;
        lastUpdate = Date.now();
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || lastUpdate + LOCK_STALE_MS < Date.now()) problem = (err as Error).message;
    }
    if (released) return;
    if (problem !== null) {
      process.emitWarning(`teamux lock compromised: ${problem}`);
      released = true;
      held.delete(dir);
      return;
    }
    timer = setTimeout(() => void refresh(), UPDATE_MS).unref();
  };
  let timer = setTimeout(() => void refresh(), UPDATE_MS).unref();
  return async () => {
    if (released) return;
    released = true;
    clearTimeout(timer);
    // Forgotten and removed in one synchronous step: a signal handled after it finds nothing to remove.
    held.delete(dir);
    try {
      rmdirSync(dir);
    } catch {
      // Gone already (taken over as stale).
    }
  };
}

/**
 * One attempt: mkdir, or remove a stale lock and mkdir once more (proper-lockfile's acquireLock).
 * Synchronous, so the caller records a lock it made before a signal can be handled in between.
 */
function take(dir: string, staleCheck = true): boolean {
  try {
    mkdirSync(dir);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  if (!staleCheck) return false;
  let st;
  try {
    st = statSync(dir);
  } catch (err) {
    // Removed meanwhile: one more try, without the stale check.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return take(dir, false);
    throw err;
  }
  if (st.mtimeMs >= Date.now() - LOCK_STALE_MS) return false;
  try {
    rmdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return take(dir, false);
}
