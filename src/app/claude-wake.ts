/**
 * Waking an idle Claude Code member: a message for it is typed into its pane (bracketed paste, then
 * Enter) only while its hooks report it idle at its prompt, never mid-turn. It takes the same cursor
 * lock as the member's Stop hook, so each message is handed over once, by one of them, and the
 * cursor moves only after the text was written to the pane. Owns one folder watch on the inboxes and
 * one on the activity records, released by dispose().
 */
import { watch, type FSWatcher } from 'node:fs';
import { wakeText } from '../claude/hook-answers.js';
import type { Disposable } from '../host/types.js';
import { readClaudeActivity, updateClaudeActivity } from '../store/claude.js';
import { ensureDir } from '../store/fsx.js';
import { withLock } from '../store/lock.js';
import type { TeamStore } from '../store/team.js';

/** What the wake needs of a pane. */
export interface WakeTarget {
  exited(): boolean;
  write(data: string): void;
}

/** Bracketed paste around `text`, then Enter: Claude Code takes it as one prompt, newlines and all. */
export function pasteAndSubmit(text: string): string {
  // The text cannot end the paste early.
  return `\x1b[200~${text.replaceAll('\x1b[201~', '')}\x1b[201~\r`;
}

/** Hand unread messages to `member` through its pane if it is idle; true when something was typed. */
export async function wakeIfIdle(store: TeamStore, member: string, target: WakeTarget): Promise<boolean> {
  if (target.exited() || (await readClaudeActivity(store.paths, member))?.state !== 'idle') return false;
  return withLock(store.paths.cursor(member, member), async () => {
    // Checked again under the lock: a Stop hook may have handed the messages over meanwhile.
    if (target.exited() || (await readClaudeActivity(store.paths, member))?.state !== 'idle') return false;
    const unread = await store.mail.unread(member, member);
    if (unread.messages.length === 0) return false;
    target.write(pasteAndSubmit(wakeText(unread.messages)));
    await store.mail.commit(member, member, unread.next);
    await updateClaudeActivity(store.paths, member, { state: 'working' });
    return true;
  });
}

/** Watch the team folder and wake the named Claude Code members as messages arrive for them while idle. */
export async function watchClaudeWake(store: TeamStore, members: readonly string[], targetOf: (member: string) => WakeTarget | undefined): Promise<Disposable> {
  await ensureDir(store.paths.inboxes);
  await ensureDir(store.paths.claude);
  let running = false;
  let again = false;
  const check = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        for (const m of members) {
          const target = targetOf(m);
          if (!target) continue;
          await wakeIfIdle(store, m, target).catch((err: unknown) => store.log.warn(`waking ${m} failed: ${(err as Error).message}`));
        }
      } while (again);
    } finally {
      running = false;
    }
  };
  const watchers: FSWatcher[] = [];
  for (const dir of [store.paths.inboxes, store.paths.claude]) {
    const w = watch(dir, (_e, file) => {
      if (file === null || !/\.(lock|tmp)$|\.lock\//.test(file)) void check();
    });
    w.on('error', () => w.close());
    watchers.push(w);
  }
  void check();
  return { dispose: () => watchers.forEach((w) => w.close()) };
}
