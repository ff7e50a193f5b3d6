/**
 * What a member owes the team, as small functions on the store: report the end of a WORK cycle
 * (a `result`, then an `idle_notification`), claim the next ready task for auto_claim, release held
 * tasks before shutting down, and keep a heartbeat. The runtime decides when; these only do.
 */
import { watch, type FSWatcher } from 'node:fs';
import type { Disposable } from '../host/types.js';
import type { Task } from '../protocol/types.js';
import type { TeamStore } from '../store/team.js';

/** How a WORK cycle ended, as reported to the lead. */
export type CycleEnd = { how: 'done'; text: string } | { how: 'failed'; error: string };

/** Send the lead a teammate's result (when there is text) and then its idle notification. */
export async function reportCycleEnd(store: TeamStore, me: string, lead: string, end: CycleEnd): Promise<boolean> {
  if (end.how === 'done' && end.text) await store.send({ from: me, to: lead, type: 'result', text: end.text });
  const text = end.how === 'done' ? `${me} is idle` : `${me} is idle: its last turn failed (${end.error})`;
  const sent = await store.send({ from: me, to: lead, type: 'idle_notification', text, payload: { reason: end.how } });
  return sent.ok;
}

/**
 * Claim the next ready task for `me`, unless `me` still holds one; null when there is none. With
 * nothing ready, claims of members whose process is gone are recovered first (cold recovery: their
 * attempts end `abandoned`), and the claim is tried once more.
 */
export async function claimReady(store: TeamStore, me: string): Promise<Task | null> {
  const board = await store.tasks.snapshot();
  if (board.tasks.some((t) => t.owner === me && t.status === 'in_progress')) return null;
  const r = await store.claim(me);
  if (r.ok) return r.value;
  if (r.reason !== 'no_ready_task' || !board.tasks.some((t) => t.status === 'in_progress')) return null;
  if ((await store.releaseStale()).released.length === 0) return null;
  const again = await store.claim(me);
  return again.ok ? again.value : null;
}

/** The user turn that starts work on an auto-claimed task. */
export function claimedText(t: Task): string {
  return `<task_claimed id="${t.id}" revision="${t.revision}">You claimed task ${t.id} from the board (auto_claim): ${t.subject}${t.description ? `\n${t.description}` : ''}</task_claimed>`;
}

/** Put every task `me` holds back on the board (the same step respond_shutdown takes). */
export { releaseHeld } from '../ops/tasks.js';

/** Write `name`'s heartbeat now and every `everyMs` until disposed. */
export function startHeartbeat(store: TeamStore, name: string, everyMs: number): Disposable {
  const beat = (): void => {
    store.heartbeat(name).catch((err: unknown) => store.log.warn(`heartbeat of ${name} failed: ${(err as Error).message}`));
  };
  beat();
  const timer = setInterval(beat, everyMs);
  timer.unref();
  return { dispose: () => clearInterval(timer) };
}

/** Call `wake` on any change in `folder` until disposed (a folder that cannot be watched is left to the caller's periodic recheck). */
export function wakeOnChange(folder: string, wake: () => void): Disposable {
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(folder, wake);
    watcher.on('error', () => watcher?.close());
  } catch {
    watcher = null;
  }
  return { dispose: () => watcher?.close() };
}
