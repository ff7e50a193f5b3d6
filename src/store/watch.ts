/**
 * Waiting on a folder: re-run a check whenever something in the folder changes (an inotify watch,
 * no busy polling), until it yields a value, the deadline passes or the caller aborts. The watch is
 * armed before the first check, so a change that lands in between is never missed.
 */
import { watch } from 'node:fs';

/** How to wait. */
export interface FolderWait {
  /** Only changes to files whose name passes this wake the check (default: any change). */
  only?: (name: string) => boolean;
  /** Also re-run the check at least this often, for conditions no file change announces. */
  everyMs?: number;
  signal?: AbortSignal;
}

/** Run `check` until it returns something other than undefined; undefined on timeout or abort. */
export async function waitOnFolder<T>(dir: string, timeoutMs: number, check: () => Promise<T | undefined>, opts: FolderWait = {}): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  let changed = false;
  let wake: (() => void) | null = null;
  const poke = (): void => {
    changed = true;
    wake?.();
  };
  const watcher = watch(dir, (_event, file) => {
    if (file === null || !opts.only || opts.only(file)) poke();
  });
  watcher.on('error', poke);
  opts.signal?.addEventListener('abort', poke);
  try {
    for (;;) {
      changed = false;
      const value = await check();
      if (value !== undefined) return value;
      const left = deadline - Date.now();
      if (left <= 0 || opts.signal?.aborted) return undefined;
      if (changed) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, opts.everyMs ?? left));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  } finally {
    watcher.close();
    opts.signal?.removeEventListener('abort', poke);
  }
}
